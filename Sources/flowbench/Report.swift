import AuthFlowScenarios
import Foundation

enum Report {
  static func number(_ x: Double) -> String {
    if x.isNaN { return "n/a" }
    if abs(x) >= 1000 { return String(format: "%.0f", x) }
    if abs(x) >= 10 { return String(format: "%.1f", x) }
    return String(format: "%.2f", x)
  }

  static func verdict(_ f: Figure) -> String {
    guard let target = f.target else { return "" }
    let digits = target.filter { $0.isNumber || $0 == "." }
    guard let bound = Double(digits) else { return target }
    let m = f.median
    let ok: Bool
    if target.hasPrefix("≤") {
      ok = m <= bound
    } else if target.hasPrefix("<") {
      ok = m < bound
    } else if target.hasPrefix("≥") {
      ok = m >= bound
    } else {
      ok = m == bound
    }
    return "\(target) \(ok ? "✔" : "✘")"
  }

  static func table(_ figures: [Figure]) -> String {
    var out = "| section | figure | unit | median | min | max | target |\n"
    out += "|---|---|---|---|---|---|---|\n"
    for f in figures {
      out += "| \(f.section) | \(f.name) | \(f.unit) | \(number(f.median)) | \(number(f.min)) | "
      out += "\(number(f.max)) | \(verdict(f)) |\n"
    }
    return out
  }

  static func json(_ figures: [Figure]) -> String {
    let items: [JSONValue] = figures.map { f in
      .object([
        ("section", .string(f.section)), ("name", .string(f.name)), ("unit", .string(f.unit)),
        ("median", f.median.isNaN ? .null : .number(f.median)),
        ("min", f.min.isNaN ? .null : .number(f.min)),
        ("max", f.max.isNaN ? .null : .number(f.max)),
        ("samples", .array(f.samples.map { $0.isNaN ? .null : .number($0) })),
        ("target", f.target.map(JSONValue.string) ?? .null),
        ("verdict", .string(verdict(f))),
      ])
    }
    return JSONValue.object([("figures", .array(items))]).prettyText + "\n"
  }
}
