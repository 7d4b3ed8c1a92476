// Apache Curator's InterProcessMutex as a locksmith lock client
// (docs/exec-clients.md), on the `zookeeper` backend: one Curator session per
// program with the run's session timeout, one mutex per lock path; a lock
// reports as its validity what the session is sure to last (the negotiated
// session timeout less the time since a request sent after the grant) and
// lock-lost events when Curator says the connection is LOST. An acquire
// while no server is connected sends nothing and fails (busy false).
// Requests are read on the main thread, one at a time, and every Curator call
// runs on one thread of its own (an InterProcessMutex belongs to the thread
// that acquired it); a call still running at the request's deadline is
// answered info and goes on.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;

public class CuratorLock {
  private static final String ROOT = "/locksmith-curator/";
  private static CuratorFramework client;
  private static int sessionMs = 2000;
  private static long timeoutMs = 500;  // the client timeout: each request's deadline, + its wait
  private static long marginMs = 250;   // the reply leaves this much before the deadline
  // Every call into Curator runs here: an InterProcessMutex must be released
  // by the thread that acquired it, and the main thread keeps the deadlines.
  private static final ExecutorService curatorThread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "curator-calls");
    t.setDaemon(true);
    return t;
  });
  private static final Map<String, InterProcessMutex> held = new ConcurrentHashMap<>();
  private static final Map<String, String> keyOf = new ConcurrentHashMap<>();

  public static void main(String[] args) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null;) {
      @SuppressWarnings("unchecked")
      Map<String, Object> request = (Map<String, Object>) new Json(line).value();
      Map<String, Object> reply = new LinkedHashMap<>();
      reply.put("id", request.get("id"));
      try {
        handle(request, reply);
      } catch (Exception e) {  // may have happened
        reply.put("result", "info");
        reply.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      send(reply);
    }
    System.exit(0);
  }

  static void handle(Map<String, Object> request, Map<String, Object> reply) throws Exception {
    String op = (String) request.get("op");
    if (op.equals("hello")) {
      connect(request);
      reply.put("name", "curator");
      reply.put("version", CuratorFramework.class.getPackage().getImplementationVersion());
      Map<String, Object> caps = new LinkedHashMap<>();
      caps.put("lock_lost", true);
      reply.put("capabilities", caps);
    } else if (op.equals("acquire")) {
      String key = (String) request.get("key");
      if (!client.getZookeeperClient().isConnected()) {  // nothing sent: a fail
        reply.put("result", "fail");
        reply.put("busy", false);
        reply.put("error", "no ZooKeeper server connected");
        return;
      }
      InterProcessMutex mutex = new InterProcessMutex(client, ROOT + key);
      long wait = ((Number) request.get("wait_ms")).longValue();
      Attempt<Long> attempt = new Attempt<>(() -> {
        if (!mutex.acquire(wait, TimeUnit.MILLISECONDS)) return null;
        // The session is sure to last a session timeout from the last
        // request ZooKeeper answered: one sent now, after the grant.
        long proofSent = System.nanoTime();
        client.checkExists().forPath(ROOT + key);
        return proofSent;
      }, granted -> {
        try {
          mutex.release();
        } catch (Exception e) {  // the session's end removes the node
        }
      });
      Long proofSent = attempt.result(wait + timeoutMs - marginMs);
      if (proofSent == null) {
        reply.put("result", "fail");
        return;
      }
      String token = "curator-" + ProcessHandle.current().pid() + "-" + request.get("id");
      held.put(token, mutex);
      keyOf.put(token, key);
      reply.put("result", "ok");
      reply.put("token", token);
      // Reckoned now (System.nanoTime reads CLOCK_MONOTONIC, as the harness
      // does): the harness takes off what the reply spends on its way.
      long now = System.nanoTime();
      reply.put("validity_ms", Math.max(0, sessionMs - (now - proofSent + 999_999) / 1_000_000));
      reply.put("validity_at_ns", now);
    } else if (op.equals("release")) {
      String token = (String) request.get("token");
      InterProcessMutex mutex = held.remove(token);
      keyOf.remove(token);
      if (mutex == null) {
        reply.put("result", "fail");
        reply.put("error", "no lock with this token");
        return;
      }
      new Attempt<Boolean>(() -> {
        mutex.release();
        return true;
      }, done -> {}).result(timeoutMs - marginMs);
      reply.put("result", "ok");
    } else {
      reply.put("result", "fail");
      reply.put("busy", false);
      reply.put("error", "unsupported op " + op);
    }
  }

  @SuppressWarnings("unchecked")
  static void connect(Map<String, Object> hello) throws Exception {
    StringBuilder hosts = new StringBuilder();
    for (Object n : (List<Object>) hello.get("nodes")) {
      Map<String, Object> node = (Map<String, Object>) n;
      if (hosts.length() > 0) hosts.append(',');
      hosts.append(node.get("address")).append(':').append(node.get("port"));
    }
    Map<String, Object> settings = (Map<String, Object>) hello.get("settings");
    timeoutMs = ((Number) hello.get("timeout_ms")).longValue();
    // Room for the reply to reach the harness on a loaded machine (a JVM's
    // thread may wait its turn for the CPU that long).
    marginMs = Math.min(250, timeoutMs / 2);
    int asked = ((Number) settings.get("session_timeout_ms")).intValue();
    // What ZooKeeper grants: the ask, within the server's bounds.
    sessionMs = Math.min(Math.max(asked, ((Number) settings.get("min_session_ms")).intValue()),
                         ((Number) settings.get("max_session_ms")).intValue());
    // An operation waits this long for a connection: well inside the
    // request's deadline (the client timeout), so a reply never misses it.
    int connectionMs = Math.max(20, ((Number) hello.get("timeout_ms")).intValue() * 2 / 5);
    client = CuratorFrameworkFactory.newClient(hosts.toString(), asked, connectionMs,
                                               new RetryNTimes(0, 0));
    client.getConnectionStateListenable().addListener((c, state) -> {
      if (state != ConnectionState.LOST) return;
      for (Map.Entry<String, String> e : keyOf.entrySet()) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("event", "lock-lost");
        event.put("key", e.getValue());
        event.put("token", e.getKey());
        event.put("error", "Curator: connection LOST");
        send(event);
      }
    });
    client.start();
    // A program restarted while the ensemble is down still answers its
    // hello; its acquires fail (nothing sent) until Curator connects.
    if (!client.blockUntilConnected(Math.max(5000, ((Number) hello.get("timeout_ms")).intValue()),
                                    TimeUnit.MILLISECONDS)) {
      return;
    }
    // A cold JVM loads and compiles the recipe's classes on its first
    // acquire, seconds when ten start at once on a busy machine: that first
    // acquire (and release) is made here, within the handshake's 30 s, on a
    // path of this program's own, rather than past a request's deadline.
    String warmUp = "/locksmith-curator-warm-up/" + hello.get("client");
    InterProcessMutex mutex = new InterProcessMutex(client, warmUp);
    try {
      new Attempt<Boolean>(() -> {
        if (mutex.acquire(0, TimeUnit.MILLISECONDS)) mutex.release();
        return true;
      }, done -> {}).result(20_000);
    } catch (Exception e) {  // only a warm-up: the requests say what fails
    }
  }

  static synchronized void send(Map<String, Object> message) {
    StringBuilder out = new StringBuilder();
    Json.write(message, out);
    System.out.println(out);
    System.out.flush();
  }

  // One call on the Curator thread whose reply keeps the request's deadline:
  // at the deadline the call is abandoned (the request is info) and goes on;
  // `late` is given its value if it ends well (an acquire that got the lock
  // after all releases it: no one else will).
  static final class Attempt<T> {
    private final Future<T> future;
    private boolean abandoned = false;
    private boolean done = false;

    Attempt(Callable<T> call, Consumer<T> late) {
      future = curatorThread.submit(() -> {
        T value = call.call();
        synchronized (this) {
          done = true;
          if (!abandoned) return value;
        }
        if (value != null) late.accept(value);
        return value;
      });
    }

    T result(long ms) throws Exception {
      try {
        return future.get(Math.max(0, ms), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        synchronized (this) {
          if (!done) {
            abandoned = true;
            throw new TimeoutException("Curator did not finish within the deadline: may have happened");
          }
        }
        return result(ms);
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
      }
    }
  }

  // Just enough JSON for the protocol: objects, arrays, strings, numbers,
  // true, false, null.
  static final class Json {
    private final String s;
    private int i = 0;

    Json(String text) {
      s = text;
    }

    Object value() {
      skip();
      char c = s.charAt(i);
      if (c == '{') {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        skip();
        if (s.charAt(i) == '}') { i++; return m; }
        do {
          skip();
          String k = (String) value();
          skip();
          i++;  // ':'
          m.put(k, value());
          skip();
        } while (s.charAt(i++) == ',');
        return m;
      }
      if (c == '[') {
        List<Object> a = new ArrayList<>();
        i++;
        skip();
        if (s.charAt(i) == ']') { i++; return a; }
        do {
          a.add(value());
          skip();
        } while (s.charAt(i++) == ',');
        return a;
      }
      if (c == '"') {
        StringBuilder b = new StringBuilder();
        for (i++; s.charAt(i) != '"'; i++) {
          char d = s.charAt(i);
          if (d != '\\') { b.append(d); continue; }
          char e = s.charAt(++i);
          if (e == 'u') { b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16)); i += 4; }
          else b.append(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e);
        }
        i++;
        return b.toString();
      }
      if (s.startsWith("true", i)) { i += 4; return true; }
      if (s.startsWith("false", i)) { i += 5; return false; }
      if (s.startsWith("null", i)) { i += 4; return null; }
      int start = i;
      while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
      String number = s.substring(start, i);
      if (number.matches("-?\\d+")) return Long.parseLong(number);
      return Double.parseDouble(number);
    }

    private void skip() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }

    @SuppressWarnings("unchecked")
    static void write(Object v, StringBuilder out) {
      if (v instanceof Map) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
          if (!first) out.append(',');
          first = false;
          write(e.getKey(), out);
          out.append(':');
          write(e.getValue(), out);
        }
        out.append('}');
      } else if (v instanceof String) {
        out.append('"');
        for (char c : ((String) v).toCharArray()) {
          if (c == '"' || c == '\\') out.append('\\').append(c);
          else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
          else out.append(c);
        }
        out.append('"');
      } else {
        out.append(v);  // numbers, booleans, null
      }
    }
  }
}
