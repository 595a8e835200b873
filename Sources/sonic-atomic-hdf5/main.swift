import Glibc
import SonicHDF5

exit(HDF5Helper.main(arguments: CommandLine.arguments))
