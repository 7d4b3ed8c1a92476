#include "workloads/redis_resource_client.h"

#include "backends/redis_lock_client.h"

namespace locksmith {
namespace {

// Every fenced script begins with this check. KEYS[1] the highest fence the
// store accepted, KEYS[2] the acquisition that was granted it (its lock
// token); ARGV[1] the op's fence or "" (unfenced), ARGV[2] its holder. A
// fence below the highest is stale; one equal to it is another
// acquisition's unless the holder is the same (a failover can hand one
// fence to two acquisitions). Rejected: {0, highest}; accepted: the fence
// and its holder become the highest, and the body runs on KEYS[3..],
// ARGV[3..].
constexpr std::string_view kFenceCheck =
    "if ARGV[1] ~= '' then "
    "local h = tonumber(redis.call('get', KEYS[1]) or '-1') "
    "local f = tonumber(ARGV[1]) "
    "if f < h or (f == h and redis.call('get', KEYS[2]) ~= ARGV[2]) then return {0, h} end "
    "redis.call('set', KEYS[1], ARGV[1]) redis.call('set', KEYS[2], ARGV[2]) end ";
// KEYS[3]: value. Reply {1, value}.
constexpr std::string_view kReadBody =
    "return {1, tonumber(redis.call('get', KEYS[3]) or '0')}";
// KEYS[3]: value, KEYS[4]: orders. ARGV[3]: value, ARGV[4]: order or "".
constexpr std::string_view kWriteBody =
    "redis.call('set', KEYS[3], ARGV[3]) "
    "if ARGV[4] ~= '' then redis.call('rpush', KEYS[4], ARGV[4]) end "
    "return {1, 0}";
// KEYS: value, orders. Reply {value, {orders}}.
constexpr std::string_view kFinalScript =
    "return {tonumber(redis.call('get', KEYS[1]) or '0'), redis.call('lrange', KEYS[2], 0, -1)}";
// KEYS: value, fence, fence holder, orders, cache. ARGV: value.
constexpr std::string_view kInitScript =
    "redis.call('del', KEYS[2], KEYS[3], KEYS[4], KEYS[5]) redis.call('set', KEYS[1], ARGV[1]) "
    "return {1, 0}";
// KEYS[3]: cache. Reply {1, value}, {2, 0} on a miss.
constexpr std::string_view kReadCacheBody =
    "local v = redis.call('get', KEYS[3]) "
    "if not v then return {2, 0} end "
    "return {1, tonumber(v)}";
// KEYS[3]: cache. ARGV[3]: value.
constexpr std::string_view kFillCacheBody = "redis.call('set', KEYS[3], ARGV[3]) return {1, 0}";
// KEYS[3]: value, KEYS[4]: cache. ARGV[3]: value.
constexpr std::string_view kWriteInvalidateBody =
    "redis.call('set', KEYS[3], ARGV[3]) redis.call('del', KEYS[4]) return {1, 0}";

// kFenceCheck, then `body`.
std::string Fenced(std::string_view body) {
  std::string script(kFenceCheck);
  script += body;
  return script;
}

// The cached copy of `key`'s value.
std::string CacheKey(const std::string& key) { return key + ":cache"; }

// The keys and arguments of the fence check, followed by the body's.
std::vector<std::string> FenceKeys(const std::string& key, std::vector<std::string> body) {
  std::vector<std::string> keys{key + ":fence", key + ":fence-holder"};
  keys.insert(keys.end(), body.begin(), body.end());
  return keys;
}
std::vector<std::string> FenceArgs(const std::optional<Fence>& fence,
                                   std::vector<std::string> body) {
  std::vector<std::string> args{fence ? std::to_string(fence->value) : std::string(),
                                fence ? fence->holder : std::string()};
  args.insert(args.end(), body.begin(), body.end());
  return args;
}

// Transport errors and error replies (CallErrorOutcome); false when the
// reply is to be read.
bool Failed(const RedisResponse& r, ResourceReply& reply) {
  const std::optional<Outcome> outcome = CallErrorOutcome(r, &reply.error);
  if (outcome) reply.outcome = *outcome;
  return outcome.has_value();
}

// {1, value}, {2, 0} (accepted, nothing found) or {0, highest}.
ResourceReply AcceptedOrRejected(const RedisResponse& r) {
  ResourceReply reply;
  if (Failed(r, reply)) return reply;
  const auto& e = r.reply.elements;
  if (r.reply.type != RedisReply::Type::kArray || e.size() != 2 ||
      e[0].type != RedisReply::Type::kInteger || e[1].type != RedisReply::Type::kInteger) {
    reply.error = "unexpected reply from the store: " + r.reply.Describe();
    return reply;
  }
  if (e[0].integer == 1 || e[0].integer == 2) {
    reply.outcome = Outcome::kOk;
    reply.value = e[1].integer;
    reply.found = e[0].integer == 1;
  } else {
    reply.outcome = Outcome::kFail;
    reply.rejected = true;
    reply.highest = e[1].integer;
    reply.error = "stale fence: the store accepted " + std::to_string(reply.highest);
  }
  return reply;
}

}  // namespace

RedisResourceClient::RedisResourceClient(boost::asio::any_io_executor executor,
                                         RedisEndpoint endpoint, std::chrono::milliseconds timeout)
    : connection_(std::move(executor), RedisConnectionOptions{std::move(endpoint), timeout}),
      timeout_(timeout) {}

boost::asio::awaitable<Status> RedisResourceClient::Connect() {
  Status s = co_await connection_.Connect();
  if (!s) co_return Error{"resource store: " + s.error()};
  co_return OkStatus();
}

boost::asio::awaitable<RedisResponse> RedisResourceClient::Eval(
    std::string_view script, const std::vector<std::string>& keys,
    const std::vector<std::string>& args) {
  const std::string nkeys = std::to_string(keys.size());
  std::vector<std::string_view> argv;
  argv.reserve(3 + keys.size() + args.size());
  argv.push_back(std::string_view("EVAL"));
  argv.push_back(script);
  argv.push_back(nkeys);
  for (const auto& k : keys) argv.push_back(k);
  for (const auto& a : args) argv.push_back(a);
  co_return co_await connection_.Command(argv, RedisConnection::Clock::now() + timeout_);
}

boost::asio::awaitable<ResourceReply> RedisResourceClient::Read(const std::string& key,
                                                                std::optional<Fence> fence) {
  // Named vectors: GCC 12 miscompiles braced temporaries in a co_await.
  const std::vector<std::string> keys = FenceKeys(key, {key});
  const std::vector<std::string> args = FenceArgs(fence, {});
  static const std::string script = Fenced(kReadBody);
  co_return AcceptedOrRejected(co_await Eval(script, keys, args));
}

boost::asio::awaitable<ResourceReply> RedisResourceClient::Write(const std::string& key,
                                                                 int64_t value,
                                                                 const std::string& order,
                                                                 std::optional<Fence> fence) {
  const std::vector<std::string> keys = FenceKeys(key, {key, key + ":orders"});
  const std::vector<std::string> args = FenceArgs(fence, {std::to_string(value), order});
  static const std::string script = Fenced(kWriteBody);
  co_return AcceptedOrRejected(co_await Eval(script, keys, args));
}

boost::asio::awaitable<ResourceReply> RedisResourceClient::Init(const std::string& key,
                                                                int64_t value) {
  const std::vector<std::string> keys{key, key + ":fence", key + ":fence-holder", key + ":orders",
                                      CacheKey(key)};
  const std::vector<std::string> args{std::to_string(value)};
  co_return AcceptedOrRejected(co_await Eval(kInitScript, keys, args));
}

boost::asio::awaitable<ResourceReply> RedisResourceClient::ReadCache(const std::string& key,
                                                                     std::optional<Fence> fence) {
  const std::vector<std::string> keys = FenceKeys(key, {CacheKey(key)});
  const std::vector<std::string> args = FenceArgs(fence, {});
  static const std::string script = Fenced(kReadCacheBody);
  co_return AcceptedOrRejected(co_await Eval(script, keys, args));
}

boost::asio::awaitable<ResourceReply> RedisResourceClient::FillCache(const std::string& key,
                                                                     int64_t value,
                                                                     std::optional<Fence> fence) {
  const std::vector<std::string> keys = FenceKeys(key, {CacheKey(key)});
  const std::vector<std::string> args = FenceArgs(fence, {std::to_string(value)});
  static const std::string script = Fenced(kFillCacheBody);
  co_return AcceptedOrRejected(co_await Eval(script, keys, args));
}

boost::asio::awaitable<ResourceReply> RedisResourceClient::WriteInvalidate(
    const std::string& key, int64_t value, std::optional<Fence> fence) {
  const std::vector<std::string> keys = FenceKeys(key, {key, CacheKey(key)});
  const std::vector<std::string> args = FenceArgs(fence, {std::to_string(value)});
  static const std::string script = Fenced(kWriteInvalidateBody);
  co_return AcceptedOrRejected(co_await Eval(script, keys, args));
}

boost::asio::awaitable<ResourceReply> RedisResourceClient::Final(const std::string& key) {
  const std::vector<std::string> keys{key, key + ":orders"};
  const std::vector<std::string> args;
  RedisResponse r = co_await Eval(kFinalScript, keys, args);
  ResourceReply reply;
  if (Failed(r, reply)) co_return reply;
  const auto& e = r.reply.elements;
  if (r.reply.type != RedisReply::Type::kArray || e.size() != 2 ||
      e[0].type != RedisReply::Type::kInteger || e[1].type != RedisReply::Type::kArray) {
    reply.error = "unexpected reply from the store: " + r.reply.Describe();
    co_return reply;
  }
  reply.outcome = Outcome::kOk;
  reply.value = e[0].integer;
  for (const auto& order : e[1].elements) reply.orders.push_back(order.str);
  co_return reply;
}

void RedisResourceClient::Close() { connection_.Close(); }

}  // namespace locksmith
