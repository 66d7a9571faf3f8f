#define TWICE(i) ((i) * 2)
