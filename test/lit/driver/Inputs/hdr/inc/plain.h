#define PLAIN 1
