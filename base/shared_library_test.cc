#include "base/shared_library.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(SharedLibraryTest, FindsAFunctionOfAnOpenedLibrary) {
  auto library = SharedLibrary::Open("libm.so.6", "libc6");
  ASSERT_TRUE(library) << library.error();
  double (*cosine)(double) = nullptr;
  ASSERT_TRUE(library->Find("cos", cosine));
  EXPECT_EQ(cosine(0.0), 1.0);
}

TEST(SharedLibraryTest, AMissingLibraryIsOneLineNamingItAndItsPackage) {
  auto library = SharedLibrary::Open("liblocksmith-absent.so.7", "liblocksmith-absent7");
  ASSERT_FALSE(library);
  EXPECT_NE(library.error().find("cannot load liblocksmith-absent.so.7"), std::string::npos)
      << library.error();
  EXPECT_NE(library.error().find("Debian package liblocksmith-absent7"), std::string::npos)
      << library.error();
  EXPECT_EQ(library.error().find('\n'), std::string::npos) << library.error();
}

TEST(SharedLibraryTest, AMissingFunctionIsNamedWithItsLibrary) {
  auto library = SharedLibrary::Open("libm.so.6", "libc6");
  ASSERT_TRUE(library) << library.error();
  void (*absent)() = nullptr;
  Status found = library->Find("locksmith_no_such_function", absent);
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error(),
            "libm.so.6 has no function locksmith_no_such_function (package libc6 older than the "
            "one locksmith was built against?)");
  EXPECT_EQ(absent, nullptr);
}

}  // namespace
}  // namespace locksmith
