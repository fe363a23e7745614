// Linux's epoll(7) for DouyinSupport's SocketLoop: Glibc's Swift module does not export
// <sys/epoll.h>. Part of the C library: nothing to link.
#ifndef DOUYIN_CEPOLL_SHIM_H
#define DOUYIN_CEPOLL_SHIM_H

#include <sys/epoll.h>

#endif
