#define LOCAL_TWICE(i) ((i) * 2)
