// AppendCompactJson: a JSON value's compact text, exactly what
// `value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)`
// gives, appended to a string, without the serializer's cost for the
// values a run records most (a flat object of integers, booleans, nulls and
// plain strings: an acquire's arguments, its token and times). Anything
// else (nesting, floats, strings that need escaping or are not ASCII) goes
// through dump() itself, so the text is always dump()'s. Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksmith {

void AppendCompactJson(const nlohmann::json& value, std::string* out);

}  // namespace locksmith
