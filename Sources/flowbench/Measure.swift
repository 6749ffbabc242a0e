import Foundation
import MallocCounter

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One figure: several samples, summarized as median, min and max.
struct Figure {
  var section: String
  var name: String
  var unit: String
  var samples: [Double]
  /// The target as text, and whether the median meets it (nil: no target).
  var target: String?
  var met: Bool?

  var sorted: [Double] { samples.sorted() }
  var median: Double {
    let s = sorted
    guard !s.isEmpty else { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
  }
  var min: Double { sorted.first ?? .nan }
  var max: Double { sorted.last ?? .nan }
}

/// Seconds taken by `body`, on the monotonic clock.
func seconds(_ body: () throws -> Void) rethrows -> Double {
  let clock = ContinuousClock()
  let start = clock.now
  try body()
  let d = clock.now - start
  return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

/// Seconds taken by an async `body`.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
  let clock = ContinuousClock()
  let start = clock.now
  try await body()
  let d = clock.now - start
  return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

/// Heap allocations so far (0 where not counted).
func allocations() -> UInt64 { authflow_allocation_count() }
var allocationCounting: Bool { authflow_allocation_counting_supported() == 1 }

/// Resident memory of this process in bytes (Linux: /proc/self/statm).
func residentBytes() -> Double {
  guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
    return .nan
  }
  let fields = text.split(separator: " ")
  guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
  return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
}

/// Bytes in use by the allocator (glibc mallinfo2), NaN elsewhere.
func heapInUse() -> Double {
  let bytes = authflow_heap_in_use()
  return bytes < 0 ? .nan : Double(bytes)
}

/// Keeps a value alive and opaque to the optimizer.
@inline(never) func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
