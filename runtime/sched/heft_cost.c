/*
 * heft_cost.c - the task cost model: per (kernel, node) run-time estimates
 * learned with an EWMA, node speed factors, and latency/bandwidth per link.
 *
 * Kernels are keyed by the 64-bit id the compiler gives each outlined target
 * region, so estimates carry over between graphs and between iterations of
 * the program's outer loop: the second time a kernel runs it is placed with
 * a measured cost instead of the default.
 */
#include <math.h>
#include <string.h>

#include "sched/sched_int.h"

/* ---- kernel map --------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33; /* splitmix64 finaliser: ids may be sequential */
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

void hcrt__kmap_fini(hcrt__kmap_t *m)
{
    free(m->keys);
    free(m->slots);
    memset(m, 0, sizeof(*m));
}

int32_t hcrt__kmap_get(const hcrt__kmap_t *m, uint64_t key)
{
    if (m->cap == 0)
        return -1;
    for (uint64_t i = mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i] < 0)
            return -1;
        if (m->keys[i] == key)
            return m->slots[i];
    }
}

static hcrt_status_t kmap_rehash(hcrt__kmap_t *m, int64_t ncap)
{
    uint64_t *keys = malloc(sizeof(*keys) * ncap);
    int32_t *slots = malloc(sizeof(*slots) * ncap);
    if (keys == NULL || slots == NULL) {
        free(keys);
        free(slots);
        return HCRT_ERR_NOMEM;
    }
    for (int64_t i = 0; i < ncap; i++)
        slots[i] = -1;
    for (int64_t j = 0; j < m->cap; j++) {
        if (m->slots[j] < 0)
            continue;
        uint64_t i = mix(m->keys[j]) & (ncap - 1);
        while (slots[i] >= 0)
            i = (i + 1) & (ncap - 1);
        keys[i] = m->keys[j];
        slots[i] = m->slots[j];
    }
    free(m->keys);
    free(m->slots);
    m->keys = keys;
    m->slots = slots;
    m->cap = ncap;
    return HCRT_OK;
}

hcrt_status_t hcrt__kmap_put(hcrt__kmap_t *m, uint64_t key, int32_t *slot,
                             int *is_new)
{
    int32_t s = hcrt__kmap_get(m, key);
    *is_new = s < 0;
    if (s >= 0) {
        *slot = s;
        return HCRT_OK;
    }
    if (2 * (int64_t)(m->count + 1) > m->cap) { /* load factor <= 1/2 */
        hcrt_status_t st = kmap_rehash(m, m->cap ? 2 * m->cap : 16);
        if (st != HCRT_OK)
            return st;
    }
    uint64_t i = mix(key) & (m->cap - 1);
    while (m->slots[i] >= 0)
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->slots[i] = m->count;
    *slot = m->count++;
    return HCRT_OK;
}

/* ---- model ------------------------------------------------------------- */

hcrt_status_t hcrt__heft_cost_create(int nnodes, hcrt__heft_cost_t **out)
{
    if (nnodes < 1 || out == NULL)
        return HCRT_ERR_INVALID;
    hcrt__heft_cost_t *cm = calloc(1, sizeof(*cm));
    if (cm == NULL)
        return HCRT_ERR_NOMEM;
    cm->speed = malloc(sizeof(double) * nnodes);
    if (cm->speed == NULL) {
        free(cm);
        return HCRT_ERR_NOMEM;
    }
    for (int p = 0; p < nnodes; p++)
        cm->speed[p] = 1.0;
    cm->nnodes = nnodes;
    cm->alpha = 0.3;
    cm->default_time = 1e-3;
    cm->lat = 2e-6; /* a plausible fabric until start-up measures it */
    cm->bw = 1e10;
    *out = cm;
    return HCRT_OK;
}

void hcrt__heft_cost_destroy(hcrt__heft_cost_t *cm)
{
    if (cm == NULL)
        return;
    free(cm->speed);
    free(cm->latm);
    free(cm->bwm);
    free(cm->est);
    free(cm->nsamp);
    hcrt__kmap_fini(&cm->kernels);
    free(cm);
}

int hcrt__heft_cost_nnodes(const hcrt__heft_cost_t *cm)
{
    return cm->nnodes;
}

hcrt_status_t hcrt__heft_cost_set_alpha(hcrt__heft_cost_t *cm, double alpha)
{
    if (!(alpha > 0.0 && alpha <= 1.0))
        return HCRT_ERR_INVALID;
    cm->alpha = alpha;
    return HCRT_OK;
}

hcrt_status_t hcrt__heft_cost_set_default_time(hcrt__heft_cost_t *cm,
                                               double seconds)
{
    if (!(seconds >= 0.0) || isinf(seconds))
        return HCRT_ERR_INVALID;
    cm->default_time = seconds;
    return HCRT_OK;
}

hcrt_status_t hcrt__heft_cost_set_speed(hcrt__heft_cost_t *cm, int node,
                                        double speed)
{
    if (node < 0 || node >= cm->nnodes || !(speed > 0.0) || isinf(speed))
        return HCRT_ERR_INVALID;
    cm->speed[node] = speed;
    return HCRT_OK;
}

static int link_ok(double latency, double bandwidth)
{
    return latency >= 0.0 && !isinf(latency) && bandwidth > 0.0;
}

hcrt_status_t hcrt__heft_cost_set_uniform_link(hcrt__heft_cost_t *cm,
                                               double latency, double bandwidth)
{
    if (!link_ok(latency, bandwidth))
        return HCRT_ERR_INVALID;
    cm->lat = latency;
    cm->bw = bandwidth;
    free(cm->latm);
    free(cm->bwm);
    cm->latm = cm->bwm = NULL;
    return HCRT_OK;
}

hcrt_status_t hcrt__heft_cost_set_link(hcrt__heft_cost_t *cm, int from, int to,
                                       double latency, double bandwidth)
{
    int P = cm->nnodes;
    if (from < 0 || from >= P || to < 0 || to >= P || from == to ||
        !link_ok(latency, bandwidth))
        return HCRT_ERR_INVALID;
    if (cm->latm == NULL) { /* switch to a matrix seeded with the uniform */
        size_t n = (size_t)P * P;
        cm->latm = malloc(sizeof(double) * n);
        cm->bwm = malloc(sizeof(double) * n);
        if (cm->latm == NULL || cm->bwm == NULL) {
            free(cm->latm);
            free(cm->bwm);
            cm->latm = cm->bwm = NULL;
            return HCRT_ERR_NOMEM;
        }
        for (size_t i = 0; i < n; i++) {
            cm->latm[i] = cm->lat;
            cm->bwm[i] = cm->bw;
        }
    }
    cm->latm[(size_t)from * P + to] = latency;
    cm->bwm[(size_t)from * P + to] = bandwidth;
    return HCRT_OK;
}

/* Slot of `kernel`, creating a row of unknown estimates if it is new. */
static hcrt_status_t kernel_row(hcrt__heft_cost_t *cm, uint64_t kernel,
                                int32_t *slot)
{
    int is_new;
    hcrt_status_t st = hcrt__kmap_put(&cm->kernels, kernel, slot, &is_new);
    if (st != HCRT_OK || !is_new)
        return st;
    int64_t P = cm->nnodes, cap = cm->kcap;
    st = hcrt__sched_grow((void **)&cm->est, &cap, (*slot + 1) * P,
                          sizeof(double));
    if (st == HCRT_OK) {
        cap = cm->kcap;
        st = hcrt__sched_grow((void **)&cm->nsamp, &cap, (*slot + 1) * P,
                              sizeof(uint64_t));
    }
    if (st != HCRT_OK) /* the map keeps the key; its row stays unusable */
        return st;
    cm->kcap = cap;
    for (int64_t p = 0; p < P; p++) {
        cm->est[*slot * P + p] = 0.0;
        cm->nsamp[*slot * P + p] = 0;
    }
    return HCRT_OK;
}

/* The estimate cell of (kernel, node) for a time of `seconds`, creating
 * the kernel's row if needed; INVALID for a bad node or time. */
static hcrt_status_t estimate_cell(hcrt__heft_cost_t *cm, uint64_t kernel,
                                   int node, double seconds, int64_t *cell)
{
    int32_t k;
    if (node < 0 || node >= cm->nnodes || !(seconds >= 0.0) || isinf(seconds))
        return HCRT_ERR_INVALID;
    hcrt_status_t st = kernel_row(cm, kernel, &k);
    if (st == HCRT_OK)
        *cell = (int64_t)k * cm->nnodes + node;
    return st;
}

hcrt_status_t hcrt__heft_cost_observe(hcrt__heft_cost_t *cm, uint64_t kernel,
                                      int node, double seconds)
{
    int64_t i;
    hcrt_status_t st = estimate_cell(cm, kernel, node, seconds, &i);
    if (st != HCRT_OK)
        return st;
    if (cm->nsamp[i] == 0)
        cm->est[i] = seconds;
    else
        cm->est[i] += cm->alpha * (seconds - cm->est[i]);
    cm->nsamp[i]++;
    return HCRT_OK;
}

hcrt_status_t hcrt__heft_cost_set_exec(hcrt__heft_cost_t *cm, uint64_t kernel,
                                       int node, double seconds)
{
    int64_t i;
    hcrt_status_t st = estimate_cell(cm, kernel, node, seconds, &i);
    if (st != HCRT_OK)
        return st;
    cm->est[i] = seconds;
    if (cm->nsamp[i] == 0)
        cm->nsamp[i] = 1;
    return HCRT_OK;
}

void hcrt__heft_cost_row(const hcrt__heft_cost_t *cm, uint64_t kernel,
                         double *row)
{
    int P = cm->nnodes;
    int32_t k = hcrt__kmap_get(&cm->kernels, kernel);
    const double *est = k >= 0 ? cm->est + (int64_t)k * P : NULL;
    const uint64_t *ns = k >= 0 ? cm->nsamp + (int64_t)k * P : NULL;
    double work = 0.0; /* speed-normalised mean over the nodes that know it */
    int known = 0;
    for (int p = 0; est != NULL && p < P; p++) {
        if (ns[p] > 0) {
            work += est[p] * cm->speed[p];
            known++;
        }
    }
    work = known ? work / known : cm->default_time;
    for (int p = 0; p < P; p++)
        row[p] = (ns != NULL && ns[p] > 0) ? est[p] : work / cm->speed[p];
}

double hcrt__heft_cost_exec(const hcrt__heft_cost_t *cm, uint64_t kernel,
                            int node)
{
    if (node < 0 || node >= cm->nnodes)
        return NAN;
    int32_t k = hcrt__kmap_get(&cm->kernels, kernel);
    int64_t i = (int64_t)k * cm->nnodes + node;
    if (k >= 0 && cm->nsamp[i] > 0)
        return cm->est[i];
    double *row = malloc(sizeof(double) * cm->nnodes);
    if (row == NULL)
        return cm->default_time / cm->speed[node];
    hcrt__heft_cost_row(cm, kernel, row);
    double v = row[node];
    free(row);
    return v;
}

uint64_t hcrt__heft_cost_samples(const hcrt__heft_cost_t *cm, uint64_t kernel,
                                 int node)
{
    int32_t k = hcrt__kmap_get(&cm->kernels, kernel);
    if (k < 0 || node < 0 || node >= cm->nnodes)
        return 0;
    return cm->nsamp[(int64_t)k * cm->nnodes + node];
}

double hcrt__heft_cost_comm(const hcrt__heft_cost_t *cm, int from, int to,
                            uint64_t bytes)
{
    if (from == to)
        return 0.0;
    if (cm->latm == NULL)
        return cm->lat + (double)bytes / cm->bw;
    size_t i = (size_t)from * cm->nnodes + to;
    return cm->latm[i] + (double)bytes / cm->bwm[i];
}

void hcrt__heft_cost_link_means(const hcrt__heft_cost_t *cm, double *lat,
                                double *inv_bw)
{
    int P = cm->nnodes;
    if (cm->latm == NULL || P < 2) {
        *lat = cm->lat;
        *inv_bw = 1.0 / cm->bw;
        return;
    }
    double sl = 0.0, sb = 0.0;
    for (int a = 0; a < P; a++)
        for (int b = 0; b < P; b++)
            if (a != b) {
                sl += cm->latm[(size_t)a * P + b];
                sb += 1.0 / cm->bwm[(size_t)a * P + b];
            }
    double pairs = (double)P * (P - 1);
    *lat = sl / pairs;
    *inv_bw = sb / pairs;
}
