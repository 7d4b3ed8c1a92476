#include "backends/redis_script.h"

#include <array>
#include <vector>

namespace locksmith {

boost::asio::awaitable<Status> RedisScript::Load(RedisConnection& connection,
                                                 RedisConnection::Clock::time_point deadline) {
  const std::array<std::string_view, 3> args{"SCRIPT", "LOAD", body_};
  RedisResponse r = co_await connection.Command(args, deadline);
  if (!r.ok()) co_return Error{"SCRIPT LOAD: " + r.message};
  if (r.reply.type != RedisReply::Type::kString) {
    co_return Error{"SCRIPT LOAD: unexpected reply " + r.reply.Describe()};
  }
  sha_ = r.reply.str;
  co_return OkStatus();
}

boost::asio::awaitable<RedisResponse> RedisScript::Run(
    RedisConnection& connection, std::span<const std::string_view> keys,
    std::span<const std::string_view> args, RedisConnection::Clock::time_point deadline) {
  const std::string numkeys = std::to_string(keys.size());
  std::vector<std::string_view> command;
  command.reserve(3 + keys.size() + args.size());
  command.push_back(sha_.empty() ? "EVAL" : "EVALSHA");
  command.push_back(sha_.empty() ? body_ : std::string_view(sha_));
  command.push_back(numkeys);
  command.insert(command.end(), keys.begin(), keys.end());
  command.insert(command.end(), args.begin(), args.end());
  RedisResponse r = co_await connection.Command(command, deadline);
  if (!sha_.empty() && r.ok() && r.reply.IsError("NOSCRIPT")) {
    ++noscript_fallbacks_;
    command[0] = "EVAL";
    command[1] = body_;
    r = co_await connection.Command(command, deadline);
  }
  co_return r;
}

}  // namespace locksmith
