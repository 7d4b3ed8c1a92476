// CompactJsonText: a JSON value's compact text, exactly as nlohmann's
// dump(-1, ' ', false, error_handler_t::replace) writes it, but for the
// common shape of a history's values (one flat object of ASCII strings
// without escapes, integers, booleans and nulls, {"token":"a1","lease_ms":
// 900}) written directly, without the serializer's own buffers: the history
// log encodes one value an op. Anything else goes to dump. Pure;
// thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksmith {

// Replaces `*out` with the text (its capacity is reused).
void CompactJsonText(const nlohmann::json& value, std::string* out);

}  // namespace locksmith
