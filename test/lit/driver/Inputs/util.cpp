extern "C" int util_twice(int x) { return 2 * x; }
