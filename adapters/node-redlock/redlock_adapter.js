#!/usr/bin/env node
// node-redlock (npm redlock 4.2.0 on ioredis) as a locksmith lock client
// (docs/exec-clients.md), on the `redlock` backend: one ioredis client per
// master, Redlock's quorum acquire with its drift factor; the lock's validity is
// what redlock computes from Date.now(), the wall clock. Ops: acquire,
// release, renew (Lock.extend). Install its modules with `npm ci` here.
'use strict';
const readline = require('readline');
const Redis = require('ioredis');
const Redlock = require('redlock');

const RETRY_DELAY_MS = 10;
let redlock = null;
const held = new Map();  // token -> the Lock that holds it

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function connect(hello) {
  const clients = hello.nodes.filter((n) => n.role === 'primary').map((n) => new Redis({
    host: n.address, port: n.port, password: hello.password || undefined,
    connectTimeout: hello.timeout_ms, commandTimeout: hello.timeout_ms,
    maxRetriesPerRequest: 0, enableOfflineQueue: true,
  }));
  // A master that does not answer is one vote fewer, not an error of the call.
  clients.forEach((c) => c.on('error', () => {}));
  redlock = new Redlock(clients, {retryCount: 0, retryDelay: RETRY_DELAY_MS, retryJitter: 0});
  redlock.on('clientError', () => {});
}

async function acquire(request) {
  const retries = Math.floor(request.wait_ms / RETRY_DELAY_MS);
  try {
    const lock = await redlock.lock(request.key, request.lease_ms,
                                    retries > 0 ? {retryCount: retries} : {});
    held.set(lock.value, lock);
    return {result: 'ok', token: lock.value, validity_ms: Math.max(0, lock.expiration - Date.now())};
  } catch (error) {
    if (error instanceof Redlock.LockError) return {result: 'fail', error: error.message};
    throw error;
  }
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
    return {result: 'ok', validity_ms: Math.max(0, extended.expiration - Date.now())};
  } catch (error) {
    if (error instanceof Redlock.LockError) return {result: 'fail', not_held: true, error: error.message};
    throw error;
  }
}

async function handle(request) {
  const reply = {id: request.id};
  try {
    if (request.op === 'hello') {
      connect(request);
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

readline.createInterface({input: process.stdin}).on('line', (line) => handle(JSON.parse(line)));
process.stdin.on('end', () => process.exit(0));
