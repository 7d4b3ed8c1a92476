#!/usr/bin/env node
// node-redlock (npm redlock 4.2.0 on ioredis) as a locksmith lock client
// (docs/exec-clients.md), on the `redlock` backend: one ioredis client per
// master, Redlock's quorum acquire with its drift factor; the lock's validity is
// what redlock computes from Date.now(), the wall clock. Ops: acquire,
// release, renew (Lock.extend). Install its modules with `npm ci` here.
//
// What the protocol asks beyond the library: while fewer than a quorum of
// masters are connected nothing is sent and the acquire fails (busy false);
// a command waits at most 2/5 of the client timeout, and a wait polls only
// while an attempt still ends inside the request's deadline (on the
// monotonic clock, not Date.now(), which a client-clock fault moves).
'use strict';
const readline = require('readline');
const {performance} = require('perf_hooks');
const Redis = require('ioredis');
const Redlock = require('redlock');

const RETRY_DELAY_MS = 10;
let redlock = null;
let masters = [];
const held = new Map();  // token -> the Lock that holds it

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function connect(hello) {
  const commandMs = Math.max(10, Math.floor(hello.timeout_ms * 2 / 5));
  const clients = hello.nodes.filter((n) => n.role === 'primary').map((n) => new Redis({
    host: n.address, port: n.port, password: hello.password || undefined,
    connectTimeout: commandMs, commandTimeout: commandMs,
    maxRetriesPerRequest: 0, enableOfflineQueue: true,
  }));
  masters = clients;
  // A master that does not answer is one vote fewer, not an error of the call.
  clients.forEach((c) => c.on('error', () => {}));
  redlock = new Redlock(clients, {retryCount: 0, retryDelay: RETRY_DELAY_MS, retryJitter: 0});
  redlock.on('clientError', () => {});
  // The hello is answered once a quorum is connected, or after a while (a
  // program restarted while masters are down answers all the same).
  const quorum = Math.floor(clients.length / 2) + 1;
  const connected = new Promise((resolve) => {
    let ready = 0;
    clients.forEach((c) => c.once('ready', () => { if (++ready === quorum) resolve(); }));
  });
  return Promise.race([connected, sleep(Math.max(hello.timeout_ms, 5000))]);
}

// One attempt of redlock's (retryCount 0) at a time, again after a refusal
// while the wait lasts: redlock's own retries are counted, not timed.
async function acquire(request) {
  const waitEnd = performance.now() + request.wait_ms;
  for (;;) {
    const ready = masters.filter((c) => c.status === 'ready').length;
    if (ready < Math.floor(masters.length / 2) + 1) {
      return {result: 'fail', busy: false,
              error: `${ready} of ${masters.length} masters connected: no quorum, nothing sent`};
    }
    try {
      const lock = await redlock.lock(request.key, request.lease_ms);
      held.set(lock.value, lock);
      return {result: 'ok', token: lock.value, ...validityNow(lock)};
    } catch (error) {
      if (!(error instanceof Redlock.LockError)) throw error;
      if (performance.now() + RETRY_DELAY_MS >= waitEnd) {
        return {result: 'fail', error: error.message};
      }
    }
    await sleep(RETRY_DELAY_MS);
  }
}

// The lease left by redlock's reckoning (its expiration, by the wall clock)
// and when it was reckoned, by CLOCK_MONOTONIC (process.hrtime, as the
// harness reads it; ns since boot are exact in a double): the harness takes
// off what the reply spends on its way.
function validityNow(lock) {
  const at = Number(process.hrtime.bigint());
  return {validity_ms: Math.max(0, lock.expiration - Date.now()), validity_at_ns: at};
}

async function release(request) {
  const lock = held.get(request.token);
  held.delete(request.token);
  if (!lock) return {result: 'fail', error: 'no lock with this token'};
  // redlock's unlock says nothing of how many masters still held it: it ran.
  await lock.unlock();
  return {result: 'ok'};
}

async function renew(request) {
  const lock = held.get(request.token);
  if (!lock) return {result: 'fail', not_held: true, error: 'no lock with this token'};
  try {
    const extended = await lock.extend(request.lease_ms);
    held.set(request.token, extended);
    return {result: 'ok', ...validityNow(extended)};
  } catch (error) {
    if (error instanceof Redlock.LockError) return {result: 'fail', not_held: true, error: error.message};
    throw error;
  }
}

async function handle(request) {
  const reply = {id: request.id};
  try {
    if (request.op === 'hello') {
      await connect(request);
      const version = require('redlock/package.json').version;
      Object.assign(reply, {name: 'node-redlock', version, capabilities: {renew: true}});
    } else if (request.op === 'acquire') {
      Object.assign(reply, await acquire(request));
    } else if (request.op === 'release') {
      Object.assign(reply, await release(request));
    } else if (request.op === 'renew') {
      Object.assign(reply, await renew(request));
    } else {
      Object.assign(reply, {result: 'fail', busy: false, error: 'unsupported op ' + request.op});
    }
  } catch (error) {  // may have happened
    Object.assign(reply, {result: 'info', error: String(error && error.message || error)});
  }
  send(reply);
}

// One request at a time, in order (the hello's connect first).
let queue = Promise.resolve();
readline.createInterface({input: process.stdin})
    .on('line', (line) => { queue = queue.then(() => handle(JSON.parse(line))); });
process.stdin.on('end', () => queue.then(() => process.exit(0)));
