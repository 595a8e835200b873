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
static inline hid_t sonic_h5_native_ushort(void) { return H5T_NATIVE_USHORT; }
static inline hid_t sonic_h5_c_string(void) { return H5T_C_S1; }
// For the tests, which write HDF5 files of known layout.
static inline unsigned sonic_h5_truncate(void) { return H5F_ACC_TRUNC; }
static inline hid_t sonic_h5_dataset_creation(void) { return H5P_DATASET_CREATE; }
static inline hid_t sonic_h5_little_endian_uint16(void) { return H5T_STD_U16LE; }
static inline hid_t sonic_h5_big_endian_uint16(void) { return H5T_STD_U16BE; }

// For the helper processes that run libhdf5. Glibc declares memfd_create and close_range only for
// _GNU_SOURCE, which Swift's Glibc module is not built with; fork's child and exec are C, below.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int sonic_pipe_closed_on_exec(int ends[2]) { return (int)syscall(SYS_pipe2, ends, O_CLOEXEC); }
static inline int sonic_memory_file(const char *name) { return (int)syscall(SYS_memfd_create, name, 1U /* MFD_CLOEXEC */); }

// Starts the program at `path` isolated from the caller: killed when the caller dies (and not
// started if it already has), its CPU time and address space capped, no core dump, default signal
// handling, and no descriptors but the request on 0, /dev/null on 1 and 2, the answer on 3 and
// `shared` (or /dev/null) on 4. Returns its pid, or -1.
// Between fork and exec the child makes only system calls: in a threaded program nothing else is
// safe there, since another thread may have held any lock at the fork.
static inline pid_t sonic_spawn_isolated(const char *path, char *const argv[], int request, int answer, int shared,
                                         int null, unsigned long cpu_seconds, unsigned long memory_bytes) {
    pid_t parent = getpid();
    pid_t child = fork();
    if (child != 0) return child;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    struct rlimit cpu = { cpu_seconds, cpu_seconds + 1 }, memory = { memory_bytes, memory_bytes }, core = { 0, 0 };
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_AS, &memory);
    setrlimit(RLIMIT_CORE, &core);
    struct sigaction standard = { 0 };
    standard.sa_handler = SIG_DFL;
    for (int number = 1; number < NSIG; number++) sigaction(number, &standard, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, 0);
    // Moved above the targets first, so that no target overwrites a source still to be moved.
    int sources[5] = { request, null, null, answer, shared >= 0 ? shared : null };
    for (int target = 0; target < 5; target++) {
        sources[target] = fcntl(sources[target], F_DUPFD, 16);
        if (sources[target] < 0) _exit(127);
    }
    for (int target = 0; target < 5; target++) {
        if (dup2(sources[target], target) < 0) _exit(127);
    }
    syscall(SYS_close_range, 5U, ~0U, 0);
    execv(path, argv);
    _exit(127);
}
