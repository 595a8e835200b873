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
static inline hid_t sonic_h5_dataset_access(void) { return H5P_DATASET_ACCESS; }
// For the tests, which write HDF5 files of known layout.
static inline unsigned sonic_h5_truncate(void) { return H5F_ACC_TRUNC; }
static inline hid_t sonic_h5_dataset_creation(void) { return H5P_DATASET_CREATE; }
static inline hid_t sonic_h5_little_endian_uint16(void) { return H5T_STD_U16LE; }
static inline hid_t sonic_h5_big_endian_uint16(void) { return H5T_STD_U16BE; }
static inline hid_t sonic_h5_file_access(void) { return H5P_FILE_ACCESS; }
static inline hid_t sonic_h5_file_creation(void) { return H5P_FILE_CREATE; }

// For the helper processes that run libhdf5. Glibc declares memfd_create and close_range only for
// _GNU_SOURCE, which Swift's Glibc module is not built with; fork's child and exec are C, below.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int sonic_pipe_closed_on_exec(int ends[2]) { return (int)syscall(SYS_pipe2, ends, O_CLOEXEC); }
static inline int sonic_memory_file(const char *name) { return (int)syscall(SYS_memfd_create, name, 1U /* MFD_CLOEXEC */); }
static inline int sonic_socket_pair(int ends[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends); }

// A lasting helper gets a request's shared memory with the request: a descriptor passed over its
// socket (SCM_RIGHTS), whose macros Swift does not import. Sends `count` bytes (at most one
// message's worth) with `descriptor` attached; returns the bytes sent, or -1.
static inline ssize_t sonic_send_with_descriptor(int socket, const void *bytes, size_t count, int descriptor) {
    struct iovec part = { (void *)bytes, count };
    union { struct cmsghdr header; char room[CMSG_SPACE(sizeof(int))]; } control;
    struct msghdr message = { 0 };
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control.room;
    message.msg_controllen = sizeof control.room;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    *(int *)CMSG_DATA(header) = descriptor;
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

#include <pthread.h>

static inline void *sonic_parent_watch(void *parent) {
    while (getppid() == (pid_t)(long)parent) sleep(1);
    _exit(0);
}

// In a lasting helper: ends it within a second of the program's end, even in the middle of a read.
static inline int sonic_watch_parent(void) {
    pthread_t watcher;
    return pthread_create(&watcher, 0, sonic_parent_watch, (void *)(long)getppid());
}

// Sends without the SIGPIPE a helper gone would raise.
static inline ssize_t sonic_send(int socket, const void *bytes, size_t count) {
    return send(socket, bytes, count, MSG_NOSIGNAL);
}

// Receives up to `count` bytes, and in `descriptor` the one descriptor sent with them (else -1),
// closed on exec. Returns the bytes received, 0 at the end, or -1.
static inline ssize_t sonic_receive_with_descriptor(int socket, void *bytes, size_t count, int *descriptor) {
    struct iovec part = { bytes, count };
    union { struct cmsghdr header; char room[CMSG_SPACE(sizeof(int))]; } control;
    struct msghdr message = { 0 };
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control.room;
    message.msg_controllen = sizeof control.room;
    *descriptor = -1;
    ssize_t received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int index = 0; index < count; index++) {
            int passed = ((int *)CMSG_DATA(header))[index];
            if (*descriptor < 0) *descriptor = passed; else close(passed);
        }
    }
    return received;
}

// Starts the program at `path` isolated from the caller: killed when the caller dies (and not
// started if it already has), its CPU time and address space capped, no core dump, default signal
// handling, and no descriptors but the request on 0, /dev/null on 1 and 2, the answer on 3 and
// `shared` (or /dev/null) on 4. Returns its pid, or -1.
// Between fork and exec the child makes only system calls: in a threaded program nothing else is
// safe there, since another thread may have held any lock at the fork.
// `lasting`: the helper outlives the thread that starts it (the kernel's parent-death signal
// follows that thread, not the program), and watches for the program's end itself
// (`sonic_watch_parent`).
static inline pid_t sonic_spawn_isolated(const char *path, char *const argv[], int request, int answer, int shared,
                                         int null, unsigned long cpu_seconds, unsigned long memory_bytes,
                                         int lasting) {
    pid_t parent = getpid();
    pid_t child = fork();
    if (child != 0) return child;
    if (!lasting) prctl(PR_SET_PDEATHSIG, SIGKILL);
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
