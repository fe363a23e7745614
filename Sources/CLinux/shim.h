// What DouyinSupport needs from Linux's C library that Glibc's Swift module leaves out: epoll(7)
// for the socket loop, naming a thread, and fallocate(2) (GNU extensions, declared here as glibc
// declares them).
// Part of the C library: nothing to link.
#ifndef DOUYIN_CLINUX_SHIM_H
#define DOUYIN_CLINUX_SHIM_H

#include <pthread.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/types.h>

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

/// Allocates disk blocks for `length` bytes at `offset` of the open file `fd` without changing its
/// size (`FALLOC_FL_KEEP_SIZE`): 0, or -1 with errno set (`EOPNOTSUPP` where the file system
/// cannot, `ENOSPC`).
static inline int douyin_reserve_space(int fd, off_t offset, off_t length) {
    extern int fallocate(int fd, int mode, off_t offset, off_t length);
    return fallocate(fd, 0x01 /* FALLOC_FL_KEEP_SIZE */, offset, length);
}

#endif
