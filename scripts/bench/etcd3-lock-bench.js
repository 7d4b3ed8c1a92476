// Lock cycles of npm etcd3's Lock (gRPC) for scripts/bench-etcd.sh: N
// clients, each an Etcd3 instance of its own (its own channel), looping
// acquire then release on one key with no hold and no pause between tries:
// etcd3's acquire takes the lock or rejects at once (a try-lock: a lease,
// then a transaction that creates the key only if it does not exist), so a
// client whose try was refused tries again. Prints one line of key=value
// pairs: cycles_per_s (released locks per second), acquire_p50_ms (from a
// cycle's first try to its lock).
//
// usage: node etcd3-lock-bench.js ENDPOINTS CLIENTS SECONDS KEY
const { Etcd3 } = require("etcd3");

async function main() {
  const [endpoints, clients, seconds, key] = process.argv.slice(2);
  const hosts = endpoints.split(",");
  const end = Date.now() + Number(seconds) * 1000;
  const acquireMs = [];
  let cycles = 0;
  const loops = [];
  const all = [];
  for (let i = 0; i < Number(clients); i++) {
    const client = new Etcd3({ hosts });
    all.push(client);
    loops.push((async () => {
      while (Date.now() < end) {
        const began = process.hrtime.bigint();
        for (;;) {
          const lock = client.lock(key).ttl(2);
          try {
            await lock.acquire();
          } catch (e) {
            if (Date.now() >= end) return;
            continue;
          }
          acquireMs.push(Number(process.hrtime.bigint() - began) / 1e6);
          await lock.release();
          cycles++;
          break;
        }
      }
    })());
  }
  const began = Date.now();
  await Promise.all(loops);
  const elapsed = (Date.now() - began) / 1000;
  acquireMs.sort((a, b) => a - b);
  const p50 = acquireMs.length ? acquireMs[Math.floor(acquireMs.length / 2)] : 0;
  console.log(`cycles_per_s=${(cycles / elapsed).toFixed(1)} acquire_p50_ms=${p50.toFixed(2)}`);
  for (const c of all) c.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
