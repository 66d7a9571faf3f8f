// Second module of globals-link.c: its globals join the same sections.
int other_counter = 4;
double other_zero[100];
double *other(int i) { other_zero[i] = other_counter; return other_zero; }
