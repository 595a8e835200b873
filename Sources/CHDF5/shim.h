#include <hdf5.h>

// HDF5's constants are macros that Swift does not import (several call H5open() as they expand).
static inline hid_t sonic_h5_default(void) { return H5P_DEFAULT; }
static inline hid_t sonic_h5_all(void) { return H5S_ALL; }
static inline hid_t sonic_h5_error_stack(void) { return H5E_DEFAULT; }
static inline unsigned sonic_h5_read_only(void) { return H5F_ACC_RDONLY; }
static inline size_t sonic_h5_variable_size(void) { return H5T_VARIABLE; }
static inline hid_t sonic_h5_native_float(void) { return H5T_NATIVE_FLOAT; }
static inline hid_t sonic_h5_native_double(void) { return H5T_NATIVE_DOUBLE; }
static inline hid_t sonic_h5_native_llong(void) { return H5T_NATIVE_LLONG; }
static inline hid_t sonic_h5_native_uchar(void) { return H5T_NATIVE_UCHAR; }
static inline hid_t sonic_h5_c_string(void) { return H5T_C_S1; }

// For the child processes that run libhdf5. Glibc declares pipe2 and close_range only for
// _GNU_SOURCE, which Swift's Glibc module is not built with.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int sonic_pipe_closed_on_exec(int ends[2]) { return (int)syscall(SYS_pipe2, ends, O_CLOEXEC); }
static inline int sonic_close_descriptors(unsigned first, unsigned last) {
    return (int)syscall(SYS_close_range, first, last, 0);
}

// prctl is variadic, which Swift cannot call: the child asks to be killed when the program dies, so
// no child working on a hostile file outlives a program that was killed or crashed meanwhile.
#include <signal.h>
#include <sys/prctl.h>
static inline int sonic_die_with_parent(void) { return prctl(PR_SET_PDEATHSIG, SIGKILL); }

// The child caps its address space at what it inherited plus `extra` bytes. It reads its own size
// with nothing but system calls: in a child forked from a threaded program only those are safe, and
// only the child knows what it inherited (the program's other threads map and unmap meanwhile).
#include <sys/resource.h>
static inline int sonic_cap_address_space(unsigned long extra) {
    char text[64];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    long n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    unsigned long pages = 0;
    for (long i = 0; i < n && text[i] >= '0' && text[i] <= '9'; i++) pages = pages * 10 + (unsigned long)(text[i] - '0');
    if (pages == 0) return -1;
    unsigned long cap = pages * (unsigned long)sysconf(_SC_PAGESIZE) + extra;
    struct rlimit memory = { cap, cap };
    return setrlimit(RLIMIT_AS, &memory);
}
