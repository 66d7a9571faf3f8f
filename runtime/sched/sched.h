/*
 * sched.h - runtime/sched as a module (internal): what the start-up calls.
 * The schedulers themselves have their own headers (hetprobe.h, heft.h).
 */
#ifndef HCRT_SCHED_H
#define HCRT_SCHED_H

/* Registers sched/settings.def's rows with the settings table (before
 * hcrt__config_init; base/config.h). */
void hcrt__sched_settings_register(void);

#endif /* HCRT_SCHED_H */
