// Linux calls Swift cannot reach through Glibc: openat2(2) has no glibc wrapper on Debian 12 and syscall(2) is
// variadic; O_PATH and struct ucred are hidden behind _GNU_SOURCE, which cannot be defined here (the headers
// would then differ from the Glibc module's), so their kernel values are spelled out.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct cb_open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};

/// RESOLVE_NO_MAGICLINKS and RESOLVE_BENEATH from <linux/openat2.h>.
static const uint64_t CB_RESOLVE_NO_MAGICLINKS = 0x02;
static const uint64_t CB_RESOLVE_BENEATH = 0x08;

/// O_PATH (asm-generic/fcntl.h): a descriptor that only names a directory, to walk through it.
static const int CB_O_PATH = 010000000;

/// openat2(dirfd, path, {flags, mode, resolve}); -1 with errno on failure (ENOSYS on a kernel before 5.6).
static inline int cb_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve) {
    struct cb_open_how how = {flags, mode, resolve};
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/// The user id of the process at the other end of a connected unix socket (SO_PEERCRED); -1 on failure.
static inline int cb_peer_uid(int fd, uid_t *uid) {
    struct { pid_t pid; uid_t uid; gid_t gid; } credentials;  // struct ucred
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}
