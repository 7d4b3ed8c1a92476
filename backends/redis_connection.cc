#include "backends/redis_connection.h"

#include <array>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "backends/task_group.h"

namespace locksmith {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// A FIFO of pending commands on a power-of-two ring, so steady-state
// push/pop never allocates (std::deque frees and reallocates blocks).
template <typename T>
class Ring {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  T& front() { return slots_[head_ & mask_]; }
  T& at(size_t i) { return slots_[(head_ + i) & mask_]; }
  void push_back(T value) {
    if (size() == slots_.size()) Grow();
    slots_[tail_++ & mask_] = std::move(value);
  }
  T pop_front() { return std::move(slots_[head_++ & mask_]); }

 private:
  void Grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : slots_.size() * 2);
    size_t n = size();
    for (size_t i = 0; i < n; ++i) bigger[i] = std::move(at(i));
    slots_ = std::move(bigger);
    mask_ = slots_.size() - 1;
    head_ = 0;
    tail_ = n;
  }
  std::vector<T> slots_;
  size_t mask_ = 0;
  size_t head_ = 0;
  size_t tail_ = 0;
};

// A pub/sub message pushed by the server: ["message", channel, payload] or
// ["pmessage", pattern, channel, payload].
bool IsPublished(const RedisReply& reply) {
  if (reply.type != RedisReply::Type::kArray || reply.elements.size() < 3) return false;
  const std::string& kind = reply.elements[0].str;
  return kind == "message" || kind == "pmessage";
}

}  // namespace

class RedisConnection::Impl : public std::enable_shared_from_this<RedisConnection::Impl> {
 public:
  Impl(asio::any_io_executor executor, RedisConnectionOptions options)
      : executor_(std::move(executor)),
        options_(std::move(options)),
        socket_(executor_),
        timer_(executor_) {
    out_.reserve(4096);
    writing_.reserve(4096);
  }

  void Enqueue(std::span<const std::string_view> args, Clock::time_point deadline,
               Handler handler) {
    if (state_ == State::kClosed) {
      Complete(std::move(handler), RedisCallError::kNotSent, "connection closed");
      return;
    }
    AppendRedisCommand(out_, args);
    pending_.push_back(Pending{deadline, enqueued_++, std::move(handler)});
    ArmTimer(deadline);
    if (state_ == State::kIdle) {
      StartConnect();
    } else if (state_ == State::kConnected) {
      FlushSoon();
    }
  }

  void Close() {
    Fail(FailKind::kClosed, "connection closed by its owner");
    state_ = State::kClosed;
  }

  bool connected() const { return state_ == State::kConnected; }
  uint64_t connects() const { return connects_; }
  std::chrono::milliseconds connect_timeout() const { return options_.connect_timeout; }

 private:
  enum class State { kIdle, kConnecting, kConnected, kClosed };
  enum class FailKind { kError, kClosed };

  struct Pending {
    Clock::time_point deadline;
    uint64_t seq = 0;
    Handler handler;

    Pending() = default;
    Pending(Clock::time_point d, uint64_t s, Handler h)
        : deadline(d), seq(s), handler(std::move(h)) {}
    Pending(Pending&&) noexcept = default;
    // Boost 1.81's any_completion_handler::operator=(&&) copy-constructs from
    // an lvalue of itself, which its unconstrained converting constructor
    // turns into infinite recursion; move-construct and swap instead.
    Pending& operator=(Pending&& other) noexcept {
      deadline = other.deadline;
      seq = other.seq;
      Handler taken(std::move(other.handler));
      handler.swap(taken);
      return *this;
    }
  };

  void Complete(Handler handler, RedisCallError error, std::string message, RedisReply reply = {}) {
    // Posted, never invoked inline: Fail runs inside a caller's own Enqueue
    // (a write error) or Close, where resuming the caller would re-enter us.
    // (A lambda, not asio::append: see Pending::operator= on Boost 1.81's
    // any_completion_handler and lvalues of itself.)
    asio::post(executor_, [h = std::move(handler), r = RedisResponse{error, std::move(message),
                                                                     std::move(reply)}]() mutable {
      std::move(h)(std::move(r));
    });
  }

  // Hands a reply to its caller inline (dispatch from the read loop): the
  // caller resumes at once and usually writes its next command before we
  // return to the reactor, saving a trip through the scheduler queue per op.
  // Safe because this never runs inside the caller's own Enqueue.
  void Deliver(Handler handler, RedisReply reply) {
    asio::dispatch(executor_,
                   [h = std::move(handler), r = RedisResponse{RedisCallError::kNone, std::string(),
                                                              std::move(reply)}]() mutable {
                     std::move(h)(std::move(r));
                   });
  }

  // The one place where a connection dies. Commands whose bytes were handed
  // to the socket (seq < written_) may have run; the rest certainly did not.
  void Fail(FailKind kind, const std::string& why) {
    ++generation_;  // stale reads/writes/connects of this socket now ignore themselves
    boost::system::error_code ignored;
    socket_.close(ignored);
    if (state_ != State::kClosed) state_ = State::kIdle;
    connect_deadline_ = Clock::time_point::max();
    out_.clear();
    writing_.clear();
    write_in_flight_ = false;
    parser_.Reset();
    DisarmTimer();
    while (!pending_.empty()) {
      Pending p = pending_.pop_front();
      RedisCallError error = kind == FailKind::kClosed ? RedisCallError::kClosed
                             : p.seq < written_        ? RedisCallError::kInDoubt
                                                       : RedisCallError::kNotSent;
      Complete(std::move(p.handler), error, why);
    }
    written_ = enqueued_;
  }

  void StartConnect() {
    state_ = State::kConnecting;
    connect_deadline_ = Clock::now() + options_.connect_timeout;
    ArmTimer(connect_deadline_);
    // What the read loop throws (an on_message handler, say) fails the run.
    BackgroundTasks(executor_).Spawn("redis connection to " + Where(),
                                     ConnectAndRead(shared_from_this(), generation_));
  }

  // Opens the socket bound to the endpoint's source address, if it has one
  // (a connect on a closed socket would open it unbound).
  boost::system::error_code BindSource(const asio::ip::address& peer) {
    boost::system::error_code ec;
    if (options_.endpoint.source_address.empty()) return ec;
    auto source = asio::ip::make_address(options_.endpoint.source_address, ec);
    if (ec) return ec;
    socket_.open(peer.is_v4() ? tcp::v4() : tcp::v6(), ec);
    if (!ec) socket_.bind(tcp::endpoint(source, 0), ec);
    if (ec) {
      boost::system::error_code ignored;
      socket_.close(ignored);
    }
    return ec;
  }

  std::string Where() const {
    return options_.endpoint.host + ":" + std::to_string(options_.endpoint.port);
  }

  // Opens the socket (bound to the source address, if any) and connects it
  // to the endpoint, resolving a name first; the caller checks the
  // generation afterwards.
  static asio::awaitable<boost::system::error_code> OpenSocket(std::shared_ptr<Impl> self,
                                                               uint64_t gen) {
    Impl& c = *self;
    auto tuple = asio::as_tuple(asio::use_awaitable);
    boost::system::error_code ec;
    boost::system::error_code parse_ec;
    auto address = asio::ip::make_address(c.options_.endpoint.host, parse_ec);
    if (!parse_ec) {
      ec = c.BindSource(address);
      if (!ec) {
        std::tie(ec) = co_await c.socket_.async_connect(
            tcp::endpoint(address, c.options_.endpoint.port), tuple);
      }
      co_return ec;
    }
    if (!c.options_.endpoint.source_address.empty()) {
      co_return asio::error::make_error_code(asio::error::address_family_not_supported);
    }
    tcp::resolver resolver(c.executor_);
    auto [rec, results] = co_await resolver.async_resolve(
        c.options_.endpoint.host, std::to_string(c.options_.endpoint.port), tuple);
    if (gen != c.generation_ || rec) co_return rec;
    std::tie(ec, std::ignore) = co_await asio::async_connect(c.socket_, results, tuple);
    co_return ec;
  }

  // Connects, authenticates, then stays on as this socket's read loop.
  static asio::awaitable<void> ConnectAndRead(std::shared_ptr<Impl> self, uint64_t gen) {
    Impl& c = *self;
    boost::system::error_code ec = co_await OpenSocket(self, gen);
    if (gen != c.generation_) co_return;  // timed out or closed meanwhile
    if (ec) {
      c.Fail(FailKind::kError, "connect to " + c.Where() + ": " + ec.message());
      co_return;
    }
    ++c.connects_;
    c.socket_.set_option(tcp::no_delay(true), ec);
    c.socket_.non_blocking(true, ec);
    if (!c.options_.endpoint.password.empty()) {
      const bool authenticated = co_await Authenticate(self, gen);
      if (!authenticated) co_return;
    }
    c.state_ = State::kConnected;
    c.connect_deadline_ = Clock::time_point::max();
    c.Flush();
    if (gen != c.generation_) co_return;
    co_await ReadReplies(self, gen);
  }

  // Sends AUTH and reads its reply. False when the connection failed (or was
  // closed) meanwhile: nothing of ours was written yet, so every queued
  // command is kNotSent.
  static asio::awaitable<bool> Authenticate(std::shared_ptr<Impl> self, uint64_t gen) {
    Impl& c = *self;
    auto tuple = asio::as_tuple(asio::use_awaitable);
    boost::system::error_code ec;
    std::string auth;
    const std::array<std::string_view, 2> args{"AUTH", c.options_.endpoint.password};
    AppendRedisCommand(auth, args);
    std::tie(ec, std::ignore) = co_await asio::async_write(c.socket_, asio::buffer(auth), tuple);
    if (gen != c.generation_) co_return false;
    if (ec) {
      c.Fail(FailKind::kError, "AUTH to " + c.Where() + ": " + ec.message());
      co_return false;
    }
    RedisReply reply;
    for (;;) {
      auto state = c.parser_.Next(reply);
      if (state == RedisReplyParser::State::kReply) break;
      if (state == RedisReplyParser::State::kError) {
        c.Fail(FailKind::kError, "AUTH to " + c.Where() + ": " + c.parser_.error());
        co_return false;
      }
      auto [rec, n] = co_await c.socket_.async_read_some(asio::buffer(c.read_buf_), tuple);
      if (gen != c.generation_) co_return false;
      if (rec) {
        c.Fail(FailKind::kError, "AUTH to " + c.Where() + ": " + rec.message());
        co_return false;
      }
      c.parser_.Feed(c.read_buf_.data(), n);
    }
    if (!reply.IsStatus("OK")) {
      c.Fail(FailKind::kError, "AUTH rejected by " + c.Where() + ": " + reply.Describe());
      co_return false;
    }
    co_return true;
  }

  // The connected socket's read loop, until it fails or is replaced.
  static asio::awaitable<void> ReadReplies(std::shared_ptr<Impl> self, uint64_t gen) {
    Impl& c = *self;
    auto tuple = asio::as_tuple(asio::use_awaitable);
    RedisReply reply;
    for (;;) {
      auto [rec, n] = co_await c.socket_.async_read_some(asio::buffer(c.read_buf_), tuple);
      if (gen != c.generation_) co_return;
      if (rec) {
        c.Fail(FailKind::kError, rec == asio::error::eof
                                     ? "connection to " + c.Where() + " closed by the server"
                                     : "connection to " + c.Where() + " lost: " + rec.message());
        co_return;
      }
      if (!c.parser_.Feed(c.read_buf_.data(), n)) {
        c.Fail(FailKind::kError, "protocol error from " + c.Where() + ": " + c.parser_.error());
        co_return;
      }
      if (!c.DeliverReplies(gen, reply)) co_return;
    }
  }

  // Hands every complete reply parsed so far to the caller it answers (or to
  // on_message). False when the connection failed, or a caller running
  // inline failed or closed it.
  bool DeliverReplies(uint64_t gen, RedisReply& reply) {
    for (;;) {
      auto state = parser_.Next(reply);
      if (state == RedisReplyParser::State::kNeedMore) return true;
      if (state == RedisReplyParser::State::kError) {
        Fail(FailKind::kError, "protocol error from " + Where() + ": " + parser_.error());
        return false;
      }
      if (options_.on_message && IsPublished(reply)) {
        options_.on_message(reply);
        continue;
      }
      if (pending_.empty() || pending_.front().seq >= written_) {
        Fail(FailKind::kError, "unsolicited reply from " + Where() + ": " + reply.Describe());
        return false;
      }
      Pending p = pending_.pop_front();
      Deliver(std::move(p.handler), std::move(reply));
      // The caller ran inline and may have failed or closed this socket.
      if (gen != generation_) return false;
    }
  }

  // Flushes once the handler that is running now returns, so every command
  // it and the handlers queued before the flush enqueue leaves in one write
  // (a read that completes many callers, each sending its next command, is
  // answered by one write, and the server reads them with one read).
  void FlushSoon() {
    if (flush_posted_ || write_in_flight_) return;
    flush_posted_ = true;
    asio::post(executor_, [self = shared_from_this()] {
      self->flush_posted_ = false;
      self->Flush();
    });
  }

  // Writes everything queued: first a non-blocking write straight from the
  // calling handler (usually takes all of it: no extra completion to
  // dispatch), an async_write only for what the socket did not take.
  void Flush() {
    if (write_in_flight_ || out_.empty() || state_ != State::kConnected) return;
    written_ = enqueued_;
    boost::system::error_code ec;
    size_t n = socket_.write_some(asio::buffer(out_), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      n = 0;
    } else if (ec) {
      Fail(FailKind::kError, "write to " + Where() + ": " + ec.message());
      return;
    }
    if (n == out_.size()) {
      out_.clear();
      return;
    }
    writing_.assign(out_, n, std::string::npos);
    out_.clear();
    write_in_flight_ = true;
    asio::async_write(socket_, asio::buffer(writing_),
                      [self = shared_from_this(), gen = generation_](
                          const boost::system::error_code& wec, size_t) {
                        if (gen != self->generation_) return;
                        self->write_in_flight_ = false;
                        if (wec) {
                          self->Fail(FailKind::kError,
                                     "write to " + self->Where() + ": " + wec.message());
                          return;
                        }
                        self->Flush();
                      });
  }

  // One timer per connection, armed for the earliest deadline it knows of.
  // It is re-armed lazily when it fires (deadlines of later commands are
  // rarely earlier), so a busy connection touches it about once per timeout
  // period, not once per command.
  void ArmTimer(Clock::time_point at) {
    if (at >= timer_at_) return;
    timer_at_ = at;
    uint64_t seq = ++timer_seq_;
    timer_.expires_at(at);
    timer_.async_wait([self = shared_from_this(), seq](const boost::system::error_code&) {
      if (seq == self->timer_seq_) self->OnTimer();
    });
  }

  void DisarmTimer() {
    if (timer_at_ == Clock::time_point::max()) return;
    timer_at_ = Clock::time_point::max();
    ++timer_seq_;
    timer_.cancel();
  }

  void OnTimer() {
    timer_at_ = Clock::time_point::max();
    Clock::time_point earliest = connect_deadline_;
    for (size_t i = 0; i < pending_.size(); ++i)
      earliest = std::min(earliest, pending_.at(i).deadline);
    if (earliest == Clock::time_point::max()) return;
    if (earliest <= Clock::now()) {
      Fail(FailKind::kError, state_ == State::kConnecting
                                 ? "connect to " + Where() + " timed out"
                                 : "no reply from " + Where() + " before the deadline");
      return;
    }
    ArmTimer(earliest);
  }

  asio::any_io_executor executor_;
  RedisConnectionOptions options_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  State state_ = State::kIdle;
  uint64_t generation_ = 0;
  uint64_t connects_ = 0;
  std::string out_;      // encoded, not yet written
  std::string writing_;  // handed to an in-flight async_write
  bool write_in_flight_ = false;
  bool flush_posted_ = false;  // FlushSoon's handler is queued
  uint64_t enqueued_ = 0;  // seq of the next command
  uint64_t written_ = 0;   // commands with seq < written_ were handed to the socket
  Ring<Pending> pending_;
  RedisReplyParser parser_;
  Clock::time_point connect_deadline_ = Clock::time_point::max();
  Clock::time_point timer_at_ = Clock::time_point::max();
  uint64_t timer_seq_ = 0;
  std::array<char, 16384> read_buf_;
};

RedisConnection::RedisConnection(asio::any_io_executor executor, RedisConnectionOptions options)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(options))) {}

RedisConnection::~RedisConnection() { impl_->Close(); }

void RedisConnection::Enqueue(std::span<const std::string_view> args, Clock::time_point deadline,
                              Handler handler) {
  impl_->Enqueue(args, deadline, std::move(handler));
}

void RedisConnection::Close() { impl_->Close(); }
bool RedisConnection::connected() const { return impl_->connected(); }
uint64_t RedisConnection::connects() const { return impl_->connects(); }

asio::awaitable<Status> RedisConnection::Connect() {
  static constexpr std::array<std::string_view, 1> kPing{"PING"};
  // The connect timeout bounds the connect + AUTH; PING gets as long again.
  auto deadline = Clock::now() + 2 * impl_->connect_timeout();
  RedisResponse r = co_await Command(kPing, deadline);
  if (!r.ok()) co_return Error{r.message};
  if (!r.reply.IsStatus("PONG")) co_return Error{"PING: unexpected reply " + r.reply.Describe()};
  co_return OkStatus();
}

}  // namespace locksmith
