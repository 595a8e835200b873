import ArgumentParser
import SonicCore

extension FrameCombination: ExpressibleByArgument {}
