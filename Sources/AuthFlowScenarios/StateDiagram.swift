import AuthFlowCore

/// The machine's states laid out in layers (breadth-first from `starting` over the arrows
/// known, then ordered within each layer by their neighbours above), with a run's path drawn
/// on top: each arrow it took, numbered in the order taken. The layout is computed here; the
/// same layout serves every run of a report, so paths can be compared by eye.
public struct StateDiagram: Sendable {
  /// Where each state is drawn (its centre).
  public private(set) var position: [String: (x: Double, y: Double)] = [:]
  /// The drawing's size.
  public private(set) var width = 0.0
  public private(set) var height = 0.0

  static let nodeWidth = 168.0
  static let nodeHeight = 28.0
  static let columnSpacing = 196.0
  static let layerSpacing = 74.0

  /// A layout of every state, using `edges` (from, to) to layer them.
  public init(edges: [(from: String, to: String)]) {
    let names = StateName.allCases.map(\.rawValue)
    var next: [String: [String]] = [:]
    for e in edges where e.from != e.to { next[e.from, default: []].append(e.to) }
    var layer: [String: Int] = ["starting": 0]
    var queue = ["starting"]
    var head = 0
    while head < queue.count {
      let s = queue[head]
      head += 1
      for t in next[s] ?? [] where layer[t] == nil {
        layer[t] = (layer[s] ?? 0) + 1
        queue.append(t)
      }
    }
    let deepest = layer.values.max() ?? 0
    for s in names where layer[s] == nil { layer[s] = deepest + 1 }  // Not reached: last.
    // Layers wider than five are folded, so the drawing stays narrow.
    var rows: [[String]] = []
    for l in 0...(layer.values.max() ?? 0) {
      let members = names.filter { layer[$0] == l }
      var k = 0
      while k < members.count {
        rows.append(Array(members[k..<min(k + 5, members.count)]))
        k += 5
      }
    }
    // Order each row by the mean column of its neighbours in the rows above (one pass).
    var column: [String: Double] = [:]
    for (r, row) in rows.enumerated() {
      var ordered = row
      if r > 0 {
        func weight(_ s: String) -> Double {
          let above = edges.compactMap { e -> Double? in
            if e.to == s, let c = column[e.from] { return c }
            if e.from == s, let c = column[e.to] { return c }
            return nil
          }
          return above.isEmpty ? 99 : above.reduce(0, +) / Double(above.count)
        }
        ordered = row.enumerated().sorted {
          let (a, b) = (weight($0.element), weight($1.element))
          return a != b ? a < b : $0.offset < $1.offset
        }.map(\.element)
      }
      for (c, s) in ordered.enumerated() { column[s] = Double(c) + Double(5 - ordered.count) / 2 }
      rows[r] = ordered
    }
    for (r, row) in rows.enumerated() {
      for s in row {
        let x = 20 + Self.nodeWidth / 2 + (column[s] ?? 0) * Self.columnSpacing
        let y = 24 + Self.nodeHeight / 2 + Double(r) * Self.layerSpacing
        position[s] = (x, y)
      }
    }
    width = 40 + Self.nodeWidth + 4 * Self.columnSpacing + 40
    height = 24 + Self.nodeHeight + Double(max(rows.count - 1, 0)) * Self.layerSpacing + 30
  }

  /// The diagram with `path` (the states a run went through, one pair per transition that
  /// changed state or did something) drawn and numbered.
  public func svg(path: [(from: String, to: String)], id: String = "") -> String {
    var s = ""
    s += "<svg class=\"states\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\""
    s += " height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\""
    s += " aria-label=\"state diagram\">"
    s +=
      "<defs><marker id=\"sarr\(id)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\""
    s +=
      " markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>"
    let visited = Set(path.flatMap { [$0.from, $0.to] })
    let first = path.first?.from
    // The arrows taken, each once, labelled with the numbers of the times it was taken.
    var order: [String] = []
    var numbers: [String: [Int]] = [:]
    for (k, p) in path.enumerated() {
      let key = p.from + "\u{1}" + p.to
      if numbers[key] == nil { order.append(key) }
      numbers[key, default: []].append(k + 1)
    }
    for key in order {
      let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
      guard parts.count == 2, let a = position[parts[0]], let b = position[parts[1]] else {
        continue
      }
      let label = Self.numbers(numbers[key] ?? [])
      s +=
        "<g class=\"path-edge\"><title>\(HTML.escape("\(parts[0]) → \(parts[1]): \(label)"))</title>"
      if parts[0] == parts[1] {
        let x = a.x + Self.nodeWidth / 2
        s +=
          "<path d=\"M\(n(x)),\(n(a.y - 6)) c26,-18 26,30 0,12\" marker-end=\"url(#sarr\(id))\"/>"
        s += "<text x=\"\(n(x + 24))\" y=\"\(n(a.y + 4))\">\(HTML.escape(label))</text>"
      } else {
        let (p1, p2) = Self.clip(a, b)
        // A slight bend, to the right of the direction of travel, so A→B and B→A do not
        // overlap.
        let mx = (p1.x + p2.x) / 2
        let my = (p1.y + p2.y) / 2
        let dx = p2.x - p1.x
        let dy = p2.y - p1.y
        let len = max((dx * dx + dy * dy).squareRoot(), 1)
        let cx = mx - dy / len * 18
        let cy = my + dx / len * 18
        s += "<path d=\"M\(n(p1.x)),\(n(p1.y)) Q\(n(cx)),\(n(cy)) \(n(p2.x)),\(n(p2.y))\""
        s += " marker-end=\"url(#sarr\(id))\"/>"
        s +=
          "<text x=\"\(n(cx))\" y=\"\(n(cy))\" text-anchor=\"middle\">\(HTML.escape(label))</text>"
      }
      s += "</g>"
    }
    for name in StateName.allCases.map(\.rawValue) {
      guard let p = position[name] else { continue }
      var cls = "node"
      if visited.contains(name) { cls += " visited" }
      if name == first { cls += " first" }
      s +=
        "<g class=\"\(cls)\"><rect x=\"\(n(p.x - Self.nodeWidth / 2))\" y=\"\(n(p.y - Self.nodeHeight / 2))\""
      s += " width=\"\(n(Self.nodeWidth))\" height=\"\(n(Self.nodeHeight))\" rx=\"14\"/>"
      s +=
        "<text x=\"\(n(p.x))\" y=\"\(n(p.y + 4))\" text-anchor=\"middle\">\(HTML.escape(name))</text></g>"
    }
    s += "</svg>"
    return s
  }

  /// `1, 4, 7` (and `1, 2, … (9)` past six).
  static func numbers(_ list: [Int]) -> String {
    if list.count <= 6 { return list.map(String.init).joined(separator: ", ") }
    return list.prefix(4).map(String.init).joined(separator: ", ") + ", … (\(list.count)×)"
  }

  /// The segment between two node centres, cut at the nodes' borders.
  static func clip(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> (
    (x: Double, y: Double), (x: Double, y: Double)
  ) {
    func cut(_ from: (x: Double, y: Double), toward to: (x: Double, y: Double)) -> (
      x: Double, y: Double
    ) {
      let dx = to.x - from.x
      let dy = to.y - from.y
      let hw = nodeWidth / 2 + 3
      let hh = nodeHeight / 2 + 3
      let tx = dx == 0 ? Double.infinity : hw / abs(dx)
      let ty = dy == 0 ? Double.infinity : hh / abs(dy)
      let t = min(tx, ty, 1)
      return (from.x + dx * t, from.y + dy * t)
    }
    return (cut(a, toward: b), cut(b, toward: a))
  }
}
