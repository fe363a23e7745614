/// An HTTP message's header fields in the order they came, names compared case-insensitively,
/// repeats kept: the one header type every client of the transport reads.
package struct HTTPHeaders: Sendable, Hashable, Sequence {
    /// The fields as (name as sent, value with surrounding spaces removed), in order.
    package private(set) var fields: [(name: String, value: String)]

    /// Headers with these fields, in this order.
    package init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// Adds a field after the others (a repeat of a name is kept as a second field).
    package mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` by one with `value`; `nil` removes them.
    package mutating func set(_ name: String, _ value: String?) {
        remove(name)
        if let value { add(name, value) }
    }

    /// Removes every field named `name`.
    package mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// The value of `name`: its fields' values joined by ", " as RFC 9110 §5.3 combines
    /// repeats (so two different `Content-Length`s read as `42, 103` and are refused above the
    /// seam); `nil` when absent.
    package subscript(_ name: String) -> String? {
        let values = fields.filter { Self.same($0.name, name) }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Whether a field named `name` is present.
    package func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// One entry a name, lowercased, repeats joined as ``subscript(_:)`` joins them: the shape
    /// of ``VideoOrigin``'s headers.
    package var lowercasedDictionary: [String: String] {
        var result: [String: String] = [:]
        for (name, value) in fields {
            let key = name.lowercased()
            result[key] = result[key].map { "\($0), \(value)" } ?? value
        }
        return result
    }

    /// One entry a name as first spelled, repeats joined: the shape `HTTPURLResponse` gives.
    package var dictionary: [String: String] {
        var result: [String: String] = [:]
        var spelling: [String: String] = [:]
        for (name, value) in fields {
            let key = spelling[name.lowercased(), default: name]
            spelling[name.lowercased()] = key
            result[key] = result[key].map { "\($0), \(value)" } ?? value
        }
        return result
    }

    /// Iterates the fields in order.
    package func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        for (name, value) in fields {
            hasher.combine(name)
            hasher.combine(value)
        }
    }

    private static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}
