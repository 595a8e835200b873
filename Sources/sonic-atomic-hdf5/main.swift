import Glibc
import SonicHDF5

// The helper only reads, and a lock libhdf5 cannot take (a network file system, a file another program is
// writing) would refuse a file that reads well: no locks, as HDF5 tools that only read take none.
setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1)
exit(HDF5Helper.main(arguments: CommandLine.arguments))
