// Flows of C++ objects between separately compiled files (xfile_cxx*.cpp).
#ifndef XFILE_CXX_FLOWS_H
#define XFILE_CXX_FLOWS_H
#include <functional>
#include <map>
#include <vector>

void fill(std::vector<double> &v);
void count_keys(std::map<int, long> &m, int n);
void for_each_index(const std::function<void(int)> &f, int n);
long guarded_static();
long constructions();
extern thread_local long tl_count;
#endif
