// RunSecrets: the secrets of this process's runs (every RandomSecret it
// drew: the servers' passwords; every secret a service names, which is
// also what it hands an exec client program), so that nothing the process
// writes or prints holds one: its log lines, the strings of the history it
// records, what it prints when a run ends, the files of a run's directory
// (harness/secret_redaction.h). Process-wide on purpose: a secret must
// stay out of whatever the process says, whichever object says it, and a
// suite's later runs must not print an earlier run's. Each occurrence
// becomes kRedacted, which is safe as it stands in every format a run
// writes (JSON, HTML, XML, server configs). Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace locksmith {

inline constexpr char kRedacted[] = "[redacted]";
// Shorter strings are not taken as secrets: redacting them would mangle
// ordinary text (the servers' secrets are 32 characters).
inline constexpr size_t kMinRunSecretLength = 8;

// Adds `secret` (ignored when shorter than kMinRunSecretLength).
void AddRunSecret(std::string_view secret);
// Every secret added so far.
std::vector<std::string> RunSecretList();
// Whether `text` holds a secret; cheap when it is shorter than any.
bool HoldsRunSecret(std::string_view text);
// `text` with every secret replaced by kRedacted.
std::string RedactRunSecrets(std::string text);
// Replaces every one of `secrets` in `text`; false when there was none.
bool RedactSecretsIn(std::string& text, const std::vector<std::string>& secrets);

}  // namespace locksmith
