#include "checker/op_marks.h"

#include "checker/checker.h"

namespace locksmith {

OpMark OpMarks::Mark(const Op& op) {
  auto f = ids_.find(std::string_view(op.f));
  if (f == ids_.end()) f = ids_.emplace(op.f, Ids()).first;
  auto key = f->second.find(std::string_view(op.key));
  if (key == f->second.end()) {
    key = f->second.emplace(op.key, static_cast<uint32_t>(names_.size())).first;
    names_.emplace_back(op.f, op.key);
  }
  return OpMark{op.index, op.time, op.process, key->second, op.type, true};
}

nlohmann::json OpMarks::Ref(const OpMark& mark) const {
  if (!mark.present) return nullptr;
  Op op;
  op.index = mark.index;
  op.time = mark.time;
  op.process = mark.process;
  op.type = mark.type;
  op.f = names_[mark.name].first;
  op.key = names_[mark.name].second;
  return OpRef(op);
}

}  // namespace locksmith
