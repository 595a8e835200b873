import Testing

/// Every end-to-end suite nests here, so they run one at a time: each starts its own X server,
/// sound server and program, and real-time audio needs the machine's cores to itself.
@Suite(.serialized) enum EndToEnd {}
