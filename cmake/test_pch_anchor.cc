// The source of locksmith_test_pch, the target whose precompiled header every
// test reuses (CMake needs a target with a source to build one).
