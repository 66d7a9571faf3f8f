/*
 * trace.c - the HCRT_TRACE timeline: per-thread event buffers rendered as
 * Chrome/Perfetto trace-event JSON.
 *
 * Each thread appends to its own buffer (no lock on the recording path; a
 * buffer is linked into a global list once, with a CAS). A full buffer
 * counts further events as dropped rather than growing without bound. At
 * shutdown every rank renders its events as JSON text with pid = its node
 * id and tid = its thread's track; the head concatenates all ranks' text
 * into one file (libhcrt's obs_report.c does the gathering).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/node.h"
#include "base/proc.h"
#include "base/trace.h"

typedef struct event {
    uint64_t t0, t1, a, b;
    const void *obj;
    int kind;
} event_t;

typedef struct tbuf {
    event_t *ev;
    uint32_t n, cap;
    int tid, omp_tid;
    uint64_t dropped;
    struct tbuf *next;
} tbuf_t;

int hcrt__trace_on;

static tbuf_t *buffers; /* every thread's buffer, pushed with a CAS */
static int next_tid;
static uint32_t cap_events = 262144;
static _Thread_local tbuf_t *mine;

static tbuf_t *my_buffer(void);

void hcrt__trace_init(void)
{
    cap_events = (uint32_t)hcrt__config_int("HCRT_TRACE_EVENTS");
    (void)my_buffer(); /* the initial thread is track 0 of the node */
}

/* The calling thread's buffer, made on its first event. */
static tbuf_t *my_buffer(void)
{
    if (__builtin_expect(mine != NULL, 1))
        return mine;
    tbuf_t *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
    b->omp_tid = omp_get_thread_num();
    b->next = __atomic_load_n(&buffers, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&buffers, &b->next, b, 1,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    mine = b;
    return b;
}

void hcrt__trace_add(hcrt_trace_kind_t kind, const void *obj, uint64_t t0,
                     uint64_t t1, uint64_t a, uint64_t b)
{
    tbuf_t *tb = my_buffer();

    if (!tb)
        return;
    if (tb->n == tb->cap) {
        uint32_t cap = tb->cap ? 2 * tb->cap : 1024;
        event_t *ev =
            cap <= cap_events ? realloc(tb->ev, cap * sizeof(*ev)) : NULL;
        if (!ev) {
            tb->dropped++;
            return;
        }
        tb->ev = ev, tb->cap = cap;
    }
    tb->ev[tb->n++] = (event_t){t0, t1, a, b, obj, (int)kind};
}

uint64_t hcrt__trace_dropped(void)
{
    uint64_t d = 0;

    for (tbuf_t *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b;
         b = b->next)
        d += b->dropped;
    return d;
}

uint64_t hcrt__trace_count(void)
{
    uint64_t n = 0;

    for (tbuf_t *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b;
         b = b->next)
        n += b->n;
    return n;
}

/* ---- rendering ------------------------------------------------------------
 */

typedef struct out {
    char *s;
    size_t len, cap;
    int failed;
} out_t;

static void put(out_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(out_t *o, const char *fmt, ...)
{
    va_list ap;

    for (int tries = 0; tries < 2 && !o->failed; tries++) {
        va_start(ap, fmt);
        int n = vsnprintf(o->s + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->failed = 1;
            return;
        }
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = 2 * o->cap + (size_t)n + 1;
        char *s = realloc(o->s, cap);
        if (!s) {
            o->failed = 1;
            return;
        }
        o->s = s, o->cap = cap;
    }
}

/* `s` as the inside of a JSON string (quotes and controls escaped). */
static void put_str(out_t *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            put(o, "\\%c", c);
        else if (c < 0x20)
            put(o, "\\u%04x", c);
        else
            put(o, "%c", c);
    }
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;

    return slash ? slash + 1 : (path && *path ? path : "?");
}

/* "file:line" of a loop from its ident's ";file;function;line;col;;". */
static void put_loop_where(out_t *o, const hcrt_ident_t *loc)
{
    const char *p = loc ? loc->psource : NULL;
    const char *f, *fn, *ln;

    if (!p || *p != ';' || !(fn = strchr(p + 1, ';')) ||
        !(ln = strchr(fn + 1, ';'))) {
        put(o, "?");
        return;
    }
    f = p + 1;
    const char *slash = memrchr(f, '/', (size_t)(fn - f));
    const char *b = slash ? slash + 1 : f;
    put_str(o, b, (size_t)(fn - b));
    put(o, ":%d (", atoi(ln + 1));
    put_str(o, fn + 1, (size_t)(ln - fn - 1));
    put(o, ")");
}

static void put_event(out_t *o, const event_t *e, int pid, int tid, int64_t off,
                      uint64_t origin)
{
    double ts = (double)((int64_t)(e->t0 - origin) - off) * 1e-3;
    double dur = e->t1 > e->t0 ? (double)(e->t1 - e->t0) * 1e-3 : 0.0;

    switch (e->kind) {
    case HCRT_TEV_REGION: {
        const hcrt_region_desc_t *r = e->obj;
        put(o, "{\"ph\":\"X\",\"cat\":\"region\",\"name\":\"");
        put_str(o, r->name ? r->name : "?", (size_t)-1);
        put(o, "\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,", pid, tid,
            ts, dur);
        put(o, "\"args\":{\"id\":\"%016" PRIx64 "\",\"where\":\"", r->id);
        put_str(o, base_name(r->file), (size_t)-1);
        put(o, ":%d\",\"on\":\"%s\"}},\n", (int)r->line,
            e->a ? "this node" : "all nodes");
        break;
    }
    case HCRT_TEV_LOOP:
        put(o, "{\"ph\":\"X\",\"cat\":\"loop\",\"name\":\"loop ");
        put_loop_where(o, e->obj);
        put(o,
            "\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":"
            "{\"iterations\":%" PRIu64 ",\"chunks\":%" PRIu64 "}},\n",
            pid, tid, ts, dur, e->a, e->b);
        break;
    case HCRT_TEV_BARRIER:
        put(o,
            "{\"ph\":\"X\",\"cat\":\"sync\",\"name\":\"barrier\",\"pid\":%d,"
            "\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f},\n",
            pid, tid, ts, dur);
        break;
    case HCRT_TEV_PLACE: {
        const hcrt_region_desc_t *r = e->obj;
        put(o, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"placement\","
               "\"name\":\"placement ");
        put_str(o, r->name ? r->name : "?", (size_t)-1);
        put(o, "\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,", pid, tid, ts);
        put(o, "\"args\":{\"where\":\"");
        put_str(o, base_name(r->file), (size_t)-1);
        put(o,
            ":%d\",\"on\":\"%s\",\"us/call on the head\":%" PRIu64
            ",\"us/call on all nodes\":%" PRIu64 "}},\n",
            (int)r->line, e->a & 1 ? "the head alone" : "all nodes", e->a >> 1,
            e->b);
        break;
    }
    case HCRT_TEV_DSM:
        put(o,
            "{\"ph\":\"C\",\"cat\":\"dsm\",\"name\":\"DSM\",\"pid\":%d,"
            "\"tid\":0,\"ts\":%.3f,\"args\":{\"faults\":%" PRIu64
            ",\"MiB fetched\":%.3f}},\n",
            pid, ts, e->a, (double)e->b / 1048576.0);
        break;
    }
}

char *hcrt__trace_render(int64_t offset_ns, uint64_t origin_ns, size_t *len)
{
    out_t o = {malloc(1 << 16), 0, 1 << 16, 0};
    int pid = hcrt__rank();

    if (!o.s)
        return *len = 0, NULL;
    put(&o,
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{"
        "\"name\":\"node %d (%s)\"}},\n",
        pid, pid, hcrt__hostname());
    put(&o,
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,"
        "\"args\":{\"sort_index\":%d}},\n",
        pid, pid);
    for (tbuf_t *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b;
         b = b->next) {
        put(&o,
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
            "\"args\":{\"name\":\"%s %d\"}},\n",
            pid, b->tid, b->tid == 0 ? "main, omp thread" : "omp thread",
            b->omp_tid);
        for (uint32_t i = 0; i < b->n; i++)
            put_event(&o, &b->ev[i], pid, b->tid, offset_ns, origin_ns);
    }
    if (o.failed) {
        free(o.s);
        hcrt_warn(HCRT_MOD_CORE, "out of memory rendering the trace");
        return *len = 0, NULL;
    }
    *len = o.len;
    return o.s;
}

int hcrt__trace_write(const char *path, char *const *parts, const size_t *lens,
                      int nparts)
{
    FILE *f = fopen(path, "w");
    int ok = 1;

    if (!f) {
        hcrt_error(HCRT_MOD_CORE,
                   "cannot write the trace to HCRT_TRACE='%s': %s; give a "
                   "path in a writable directory",
                   path, strerror(errno));
        return -1;
    }
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", f);
    for (int i = 0; i < nparts; i++)
        if (parts[i] && lens[i])
            ok &= fwrite(parts[i], 1, lens[i], f) == lens[i];
    /* Every part ends with ",\n": a last metadata object closes the list. */
    fputs("{\"ph\":\"M\",\"name\":\"trace_end\",\"pid\":0,\"args\":{}}\n]}\n",
          f);
    ok &= fclose(f) == 0;
    if (!ok) {
        hcrt_error(HCRT_MOD_CORE, "writing the trace to '%s' failed: %s", path,
                   strerror(errno));
        return -1;
    }
    return 0;
}
