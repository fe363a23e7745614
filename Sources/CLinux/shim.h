// What DouyinSupport's socket loop needs from Linux's C library that Glibc's Swift module leaves
// out: epoll(7), and naming a thread (GNU extensions, declared here as glibc declares them).
// Part of the C library: nothing to link.
#ifndef DOUYIN_CLINUX_SHIM_H
#define DOUYIN_CLINUX_SHIM_H

#include <pthread.h>
#include <stddef.h>
#include <sys/epoll.h>

/// Names the calling thread (15 bytes at most, else ERANGE): 0 or an errno.
static inline int douyin_set_thread_name(const char *name) {
    extern int pthread_setname_np(pthread_t thread, const char *name);
    return pthread_setname_np(pthread_self(), name);
}

/// The calling thread's name into `buffer` (16 bytes suffice): 0 or an errno.
static inline int douyin_thread_name(char *buffer, size_t size) {
    extern int pthread_getname_np(pthread_t thread, char *buffer, size_t size);
    return pthread_getname_np(pthread_self(), buffer, size);
}

#endif
