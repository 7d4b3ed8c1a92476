// FakeMariadbServer (test-only): an in-process TCP server on 127.0.0.1 that
// speaks just enough of the MySQL client/server protocol for libmariadb: a
// handshake that accepts any login, then each COM_QUERY answered with
// whatever the test's responder returns (an OK with an insert id, an error,
// a one-column row, no answer at all, or a closed connection). Every query is
// recorded. Runs on the test's io_context. Thread-safety: none.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace locksmith::testing {

class FakeMariadbServer {
 public:
  struct Answer {
    enum class Kind { kOk, kError, kRow, kSilence, kClose };
    Kind kind = Kind::kOk;
    uint64_t insert_id = 0;            // kOk
    uint16_t code = 0;                 // kError
    std::optional<std::string> value;  // kRow: one row of one column (nullopt: NULL)
  };
  static Answer Ok(uint64_t insert_id = 0) { return {Answer::Kind::kOk, insert_id, 0, {}}; }
  static Answer Err(uint16_t code) { return {Answer::Kind::kError, 0, code, {}}; }
  static Answer Row(std::optional<std::string> v) { return {Answer::Kind::kRow, 0, 0, v}; }
  static Answer Silence() { return {Answer::Kind::kSilence, 0, 0, {}}; }
  static Answer Close() { return {Answer::Kind::kClose, 0, 0, {}}; }
  using Responder = std::function<Answer(const std::string& sql)>;

  FakeMariadbServer(boost::asio::any_io_executor executor, Responder responder)
      : executor_(executor),
        acceptor_(executor, {boost::asio::ip::make_address("127.0.0.1"), 0}),
        responder_(std::move(responder)) {
    boost::asio::co_spawn(executor_, AcceptLoop(), boost::asio::detached);
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }
  const std::vector<std::string>& queries() const { return queries_; }
  int logins() const { return logins_; }
  // Closes every connection now (a server restart, an aborted connection).
  void DropConnections() {
    boost::system::error_code ignored;
    for (auto& s : sockets_) s->close(ignored);
  }
  void Stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    DropConnections();
  }

 private:
  using Socket = boost::asio::ip::tcp::socket;
  using Bytes = std::string;

  static void Int(Bytes& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  static void LenencInt(Bytes& out, uint64_t v) {
    if (v < 251) {
      Int(out, v, 1);
    } else {
      out.push_back(static_cast<char>(0xfe));
      Int(out, v, 8);
    }
  }
  static void LenencString(Bytes& out, const std::string& s) {
    LenencInt(out, s.size());
    out += s;
  }

  static Bytes Handshake() {
    // PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH | CONNECT_WITH_DB |
    // LONG_PASSWORD | TRANSACTIONS
    const uint32_t caps = 0x200 | 0x8000 | 0x80000 | 0x8 | 0x1 | 0x2000;
    Bytes p;
    p.push_back(10);
    p += std::string("5.5.5-10.11.0-fake") + '\0';
    Int(p, 1, 4);                  // connection id
    p += "12345678";               // scramble, first part
    p.push_back('\0');
    Int(p, caps & 0xffff, 2);
    p.push_back(33);               // utf8
    Int(p, 2, 2);                  // autocommit
    Int(p, caps >> 16, 2);
    p.push_back(21);               // scramble length
    p += std::string(10, '\0');
    p += std::string("abcdefghijkl") + '\0';
    p += std::string("mysql_native_password") + '\0';
    return p;
  }
  static Bytes OkPacket(uint64_t insert_id) {
    Bytes p(1, '\0');
    LenencInt(p, 0);  // affected rows
    LenencInt(p, insert_id);
    Int(p, 2, 2);  // status: autocommit
    Int(p, 0, 2);  // warnings
    return p;
  }
  static Bytes ErrPacket(uint16_t code) {
    Bytes p(1, static_cast<char>(0xff));
    Int(p, code, 2);
    p += "#HY000fake error " + std::to_string(code);
    return p;
  }
  static Bytes EofPacket() {
    Bytes p(1, static_cast<char>(0xfe));
    Int(p, 0, 2);
    Int(p, 2, 2);
    return p;
  }
  static Bytes ColumnDefinition() {
    Bytes p;
    for (const char* s : {"def", "", "", "", "v", ""}) LenencString(p, s);
    LenencInt(p, 0x0c);
    Int(p, 33, 2);     // charset
    Int(p, 255, 4);    // length
    p.push_back(static_cast<char>(0xfd));  // VAR_STRING
    Int(p, 0, 2);      // flags
    p.push_back(0);    // decimals
    Int(p, 0, 2);
    return p;
  }

  static boost::asio::awaitable<void> Send(Socket& s, uint8_t& seq, const Bytes& payload) {
    Bytes packet;
    Int(packet, payload.size(), 3);
    packet.push_back(static_cast<char>(seq++));
    packet += payload;
    co_await boost::asio::async_write(s, boost::asio::buffer(packet), boost::asio::use_awaitable);
  }
  // The next packet's payload and its sequence number.
  static boost::asio::awaitable<Bytes> Receive(Socket& s, uint8_t& seq) {
    unsigned char header[4];
    co_await boost::asio::async_read(s, boost::asio::buffer(header), boost::asio::use_awaitable);
    Bytes payload(header[0] | (header[1] << 8) | (header[2] << 16), '\0');
    seq = static_cast<uint8_t>(header[3] + 1);
    co_await boost::asio::async_read(s, boost::asio::buffer(payload), boost::asio::use_awaitable);
    co_return payload;
  }

  boost::asio::awaitable<void> AcceptLoop() {
    for (;;) {
      auto [ec, socket] =
          co_await acceptor_.async_accept(boost::asio::as_tuple(boost::asio::use_awaitable));
      if (ec) co_return;
      sockets_.push_back(std::make_shared<Socket>(std::move(socket)));
      boost::asio::co_spawn(executor_, Serve(sockets_.back()), boost::asio::detached);
    }
  }

  boost::asio::awaitable<void> Serve(std::shared_ptr<Socket> socket) {
    try {
      uint8_t seq = 0;
      co_await Send(*socket, seq, Handshake());
      (void)co_await Receive(*socket, seq);  // any login will do
      ++logins_;
      co_await Send(*socket, seq, OkPacket(0));
      for (;;) {
        const Bytes command = co_await Receive(*socket, seq);
        if (command.empty() || command[0] == 0x01) co_return;  // COM_QUIT
        if (command[0] != 0x03) {
          co_await Send(*socket, seq, OkPacket(0));
          continue;
        }
        queries_.push_back(command.substr(1));
        if (!co_await Reply(*socket, seq, responder_(queries_.back()))) co_return;
      }
    } catch (const boost::system::system_error&) {
      // the client went away, or DropConnections()
    }
  }

  // False when the connection is to end.
  boost::asio::awaitable<bool> Reply(Socket& s, uint8_t& seq, const Answer& a) {
    switch (a.kind) {
      case Answer::Kind::kOk: co_await Send(s, seq, OkPacket(a.insert_id)); break;
      case Answer::Kind::kError: co_await Send(s, seq, ErrPacket(a.code)); break;
      case Answer::Kind::kRow: {
        Bytes count;
        LenencInt(count, 1);
        co_await Send(s, seq, count);
        co_await Send(s, seq, ColumnDefinition());
        co_await Send(s, seq, EofPacket());
        Bytes row;
        if (a.value) {
          LenencString(row, *a.value);
        } else {
          row.push_back(static_cast<char>(0xfb));
        }
        co_await Send(s, seq, row);
        co_await Send(s, seq, EofPacket());
        break;
      }
      case Answer::Kind::kSilence: break;
      case Answer::Kind::kClose: {
        boost::system::error_code ignored;
        s.close(ignored);
        co_return false;
      }
    }
    co_return true;
  }

  boost::asio::any_io_executor executor_;
  boost::asio::ip::tcp::acceptor acceptor_;
  Responder responder_;
  std::vector<std::shared_ptr<Socket>> sockets_;
  std::vector<std::string> queries_;
  int logins_ = 0;
};

}  // namespace locksmith::testing
