#include "backends/zk_session.h"

#include <zookeeper/zookeeper.h>

#include <cerrno>
#include <cstring>
#include <list>

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/zk_library.h"

namespace locksmith {
namespace asio = boost::asio;
using Clock = ZkSession::Clock;

// Lives on the executor's thread; the library's threads reach it only by
// posting there through a weak pointer (see HandleContext).
// What a handle's watchers get as their context: which session state to
// post to, and which handle it was (events of a closed handle are dropped).
struct ZkSession::HandleContext {
  std::weak_ptr<ZkSession::State> state;
  asio::any_io_executor executor;
  int64_t generation = 0;
};

struct ZkSession::State {
  asio::any_io_executor executor;
  std::weak_ptr<State> self;
  int64_t generation = 0;  // of the handle whose events count
  bool connected = false;
  bool expired = false;
  std::optional<Clock::time_point> suspended_since = Clock::now();
  int64_t session_id = 0;
  std::chrono::milliseconds negotiated{0};
  int64_t watch_events = 0;
  std::list<std::shared_ptr<asio::steady_timer>> waiters;
  int64_t events = 0;  // every WakeAll
  std::function<void()> listener;  // after each session event

  void WakeAll() {
    ++events;
    for (auto& w : waiters) w->cancel();
  }
};

namespace {

// What a handle's watchers get as their context: which session state to
// post to, and which handle it was (events of a closed handle are dropped).
struct HandleContext {
  std::weak_ptr<ZkSession::State> state;
  asio::any_io_executor executor;
  int64_t generation = 0;
};

// One request in flight, shared by the awaiting coroutine and the posted
// completion.
struct Call {
  explicit Call(asio::any_io_executor ex)
      : executor(ex), timer(std::make_shared<asio::steady_timer>(ex)) {}
  asio::any_io_executor executor;
  std::shared_ptr<asio::steady_timer> timer;
  bool done = false;
  ZkReply reply;
};

// Hands `reply` to the call's coroutine on its executor; frees `data`.
void Finish(const void* data, ZkReply reply) {
  auto* holder = static_cast<std::shared_ptr<Call>*>(const_cast<void*>(data));
  std::shared_ptr<Call> call = std::move(*holder);
  delete holder;
  asio::post(call->executor, [call, reply = std::move(reply)]() mutable {
    call->done = true;
    call->reply = std::move(reply);
    call->timer->cancel();
  });
}

std::optional<ZkStat> ToStat(const Stat* stat) {
  if (stat == nullptr) return std::nullopt;
  return ZkStat{stat->czxid, stat->ephemeralOwner};
}

void OnStringStat(int rc, const char* value, const Stat* stat, const void* data) {
  ZkReply r;
  r.rc = rc;
  if (rc == ZOK && value != nullptr) r.path = value;
  if (rc == ZOK) r.stat = ToStat(stat);
  Finish(data, std::move(r));
}

void OnStat(int rc, const Stat* stat, const void* data) {
  ZkReply r;
  r.rc = rc;
  if (rc == ZOK) r.stat = ToStat(stat);
  Finish(data, std::move(r));
}

void OnStrings(int rc, const String_vector* strings, const void* data) {
  ZkReply r;
  r.rc = rc;
  if (rc == ZOK && strings != nullptr) {
    for (int i = 0; i < strings->count; ++i) r.children.emplace_back(strings->data[i]);
  }
  Finish(data, std::move(r));
}

void OnVoid(int rc, const void* data) { Finish(data, ZkReply{rc, {}, {}, {}}); }

// Session events (the handle's global watcher) and node events (watches).
void OnEvent(zhandle_t* zh, int type, int state, const char*, void* context) {
  auto* handle = static_cast<ZkSession::HandleContext*>(context);
  int64_t session = 0;
  int negotiated = 0;
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) {
    session = zoo_client_id(zh)->client_id;
    negotiated = zoo_recv_timeout(zh);
  }
  asio::post(handle->executor, [weak = handle->state, generation = handle->generation, type,
                                state, session, negotiated] {
    auto s = weak.lock();
    if (!s || s->generation != generation) return;
    if (type == ZOO_SESSION_EVENT) {
      if (state == ZOO_CONNECTED_STATE) {
        s->connected = true;
        s->suspended_since.reset();
        s->session_id = session;
        s->negotiated = std::chrono::milliseconds(negotiated);
      } else {
        if (s->connected || !s->suspended_since) s->suspended_since = Clock::now();
        s->connected = false;
        if (state == ZOO_EXPIRED_SESSION_STATE) s->expired = true;
      }
    } else {
      ++s->watch_events;
    }
    s->WakeAll();
    if (type == ZOO_SESSION_EVENT && s->listener) s->listener();
  });
}

// A timer-bounded wait for `call`'s completion.
asio::awaitable<ZkReply> Await(std::shared_ptr<Call> call, Clock::time_point deadline) {
  if (!call->done) {
    call->timer->expires_at(deadline);
    boost::system::error_code ec;
    co_await call->timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  if (!call->done) co_return ZkReply{ZkSession::kTimedOut, {}, {}, {}};
  co_return call->reply;
}

}  // namespace

std::string ZkErrorText(int rc) {
  if (rc == ZkSession::kTimedOut) return "no reply before the deadline";
  return zerror(rc);
}

bool ZkDefinitelyNotApplied(int rc) {
  // Errors the server (or the library, before sending) returns for a request
  // it did not apply. Connection loss, timeouts, ZCLOSING and ZOPERATIONTIMEOUT
  // may come after the request left.
  return rc == ZNONODE || rc == ZNODEEXISTS || rc == ZNOTEMPTY || rc == ZBADVERSION ||
         rc == ZNOCHILDRENFOREPHEMERALS || rc == ZBADARGUMENTS || rc == ZINVALIDSTATE ||
         rc == ZSESSIONEXPIRED || rc == ZNOAUTH || rc == ZINVALIDACL ||
         rc == ZMARSHALLINGERROR;
}

ZkSession::ZkSession(asio::any_io_executor executor, std::string connect_string,
                     std::chrono::milliseconds session_timeout)
    : executor_(std::move(executor)),
      connect_string_(std::move(connect_string)),
      session_timeout_(session_timeout) {}

ZkSession::~ZkSession() { Close(); }

Status ZkSession::Open() {
  QuietZkLibrary();
  if (zh_ != nullptr) return OkStatus();
  if (!state_) {
    state_ = std::make_shared<State>();
    state_->executor = executor_;
    state_->self = state_;
  }
  ++generation_;
  state_->listener = listener_;
  state_->generation = generation_;
  state_->connected = false;
  state_->expired = false;
  state_->session_id = 0;
  state_->suspended_since = Clock::now();
  state_->negotiated = session_timeout_;
  handle_context_ = std::make_unique<HandleContext>(HandleContext{state_, executor_, generation_});
  zh_ = zookeeper_init(connect_string_.c_str(), OnEvent, static_cast<int>(session_timeout_.count()),
                       nullptr, handle_context_.get(), 0);
  if (zh_ == nullptr) {
    return Error{"cannot start a zookeeper session with " + connect_string_ + ": " +
                 std::strerror(errno)};
  }
  return OkStatus();
}

Status ZkSession::ReopenIfExpired() {
  if (zh_ != nullptr && !state_->expired) return OkStatus();
  CloseHandle();
  return Open();
}

void ZkSession::CloseHandle() {
  if (zh_ == nullptr) return;
  // Joins the library's threads; pending completions end with ZCLOSING
  // (posted to the executor like any other).
  zookeeper_close(zh_);
  zh_ = nullptr;
  handle_context_.reset();
  if (state_) {
    ++state_->generation;  // events of the closed handle, already posted, are dropped
    state_->listener = nullptr;
    state_->connected = false;
    if (!state_->suspended_since) state_->suspended_since = Clock::now();
    state_->WakeAll();
  }
}

void ZkSession::Close() { CloseHandle(); }

asio::awaitable<bool> ZkSession::WaitConnected(Clock::time_point deadline) {
  while (state_ && !state_->connected && !state_->expired && zh_ != nullptr &&
         Clock::now() < deadline) {
    co_await WaitForEvent(deadline);
  }
  co_return state_ && state_->connected;
}

asio::awaitable<void> ZkSession::WaitForEvent(Clock::time_point deadline, int64_t seen) {
  if (state_ && state_->events != seen) co_return;
  co_await WaitForEvent(deadline);
}

int64_t ZkSession::event_count() const { return state_ ? state_->events : 0; }

asio::awaitable<void> ZkSession::WaitForEvent(Clock::time_point deadline) {
  if (!state_) co_return;
  auto timer = std::make_shared<asio::steady_timer>(executor_, deadline);
  state_->waiters.push_back(timer);
  auto it = std::prev(state_->waiters.end());
  boost::system::error_code ec;
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  state_->waiters.erase(it);
}

asio::awaitable<ZkReply> ZkSession::Create(const std::string& path, const std::string& data,
                                           int flags, Clock::time_point deadline) {
  if (zh_ == nullptr) co_return ZkReply{ZINVALIDSTATE, {}, {}, {}};
  auto call = std::make_shared<Call>(executor_);
  auto* holder = new std::shared_ptr<Call>(call);
  const int rc = zoo_acreate2(zh_, path.c_str(), data.data(), static_cast<int>(data.size()),
                              &ZOO_OPEN_ACL_UNSAFE, flags, OnStringStat, holder);
  if (rc != ZOK) {
    delete holder;
    co_return ZkReply{rc, {}, {}, {}};
  }
  co_return co_await Await(call, deadline);
}

asio::awaitable<ZkReply> ZkSession::Exists(const std::string& path, bool watch,
                                           Clock::time_point deadline) {
  if (zh_ == nullptr) co_return ZkReply{ZINVALIDSTATE, {}, {}, {}};
  auto call = std::make_shared<Call>(executor_);
  auto* holder = new std::shared_ptr<Call>(call);
  const int rc = zoo_awexists(zh_, path.c_str(), watch ? OnEvent : nullptr,
                              watch ? handle_context_.get() : nullptr, OnStat, holder);
  if (rc != ZOK) {
    delete holder;
    co_return ZkReply{rc, {}, {}, {}};
  }
  co_return co_await Await(call, deadline);
}

asio::awaitable<ZkReply> ZkSession::Children(const std::string& path,
                                             Clock::time_point deadline) {
  if (zh_ == nullptr) co_return ZkReply{ZINVALIDSTATE, {}, {}, {}};
  auto call = std::make_shared<Call>(executor_);
  auto* holder = new std::shared_ptr<Call>(call);
  const int rc = zoo_aget_children(zh_, path.c_str(), 0, OnStrings, holder);
  if (rc != ZOK) {
    delete holder;
    co_return ZkReply{rc, {}, {}, {}};
  }
  co_return co_await Await(call, deadline);
}

asio::awaitable<ZkReply> ZkSession::Delete(const std::string& path, Clock::time_point deadline) {
  if (zh_ == nullptr) co_return ZkReply{ZINVALIDSTATE, {}, {}, {}};
  auto call = std::make_shared<Call>(executor_);
  auto* holder = new std::shared_ptr<Call>(call);
  const int rc = zoo_adelete(zh_, path.c_str(), -1, OnVoid, holder);
  if (rc != ZOK) {
    delete holder;
    co_return ZkReply{rc, {}, {}, {}};
  }
  co_return co_await Await(call, deadline);
}

bool ZkSession::connected() const { return state_ && state_->connected; }
bool ZkSession::expired() const { return state_ && state_->expired; }
std::optional<Clock::time_point> ZkSession::suspended_since() const {
  if (!state_) return Clock::now();
  return state_->suspended_since;
}
int64_t ZkSession::session_id() const { return state_ ? state_->session_id : 0; }
std::chrono::milliseconds ZkSession::negotiated_timeout() const {
  return state_ && state_->negotiated.count() > 0 ? state_->negotiated : session_timeout_;
}
int64_t ZkSession::watch_events() const { return state_ ? state_->watch_events : 0; }

}  // namespace locksmith
