// Apache Curator's InterProcessMutex under the load scripts/bench-zookeeper.sh
// puts on locksmith's zk-fair: N clients (one ZooKeeper session each) loop
// acquire / release of one lock path for a fixed time; prints cycles per
// second and the acquire latency percentiles, one line of key=value pairs.
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;

public class CuratorMutexBench {
  public static void main(String[] args) throws Exception {
    final String connect = args[0];
    final int clients = Integer.parseInt(args[1]);
    final double seconds = Double.parseDouble(args[2]);
    final String path = args.length > 3 ? args[3] : "/curator/lock-0";
    final AtomicLong cycles = new AtomicLong();
    final List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    List<CuratorFramework> sessions = new ArrayList<>();
    for (int i = 0; i < clients; ++i) {
      CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 2000, 2000,
          new RetryNTimes(3, 100));
      c.start();
      c.blockUntilConnected();
      sessions.add(c);
    }
    final long end = System.nanoTime() + (long) (seconds * 1e9);
    List<Thread> threads = new ArrayList<>();
    for (CuratorFramework c : sessions) {
      Thread t = new Thread(() -> {
        InterProcessMutex mutex = new InterProcessMutex(c, path);
        List<Long> mine = new ArrayList<>();
        try {
          while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            if (!mutex.acquire(10, TimeUnit.SECONDS)) continue;
            mine.add(System.nanoTime() - t0);
            mutex.release();
            cycles.incrementAndGet();
          }
        } catch (Exception e) {
          System.err.println("client failed: " + e);
        }
        latencies.addAll(mine);
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) t.join();
    for (CuratorFramework c : sessions) c.close();
    List<Long> sorted = new ArrayList<>(latencies);
    Collections.sort(sorted);
    double p50 = sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2) / 1e6;
    double p99 = sorted.isEmpty() ? 0 : sorted.get((int) (sorted.size() * 0.99)) / 1e6;
    System.out.printf("cycles=%d cycles_per_s=%.1f acquire_p50_ms=%.2f acquire_p99_ms=%.2f%n",
        cycles.get(), cycles.get() / seconds, p50, p99);
  }
}
