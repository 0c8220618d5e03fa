/// Decodes the HTML character references that stream titles carry: Icecast
/// turns characters outside a mount's charset into `&#1067;`, and many
/// station tools send `&amp;`. Only well-formed references are decoded; a
/// reference to a control character or a non-character is left as text.
package enum CharacterReferences {
    private static let named: [Substring: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "#39": "'", "nbsp": "\u{A0}",
    ]

    package static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = String.UnicodeScalarView()
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output.append(contentsOf: rest[..<ampersand].unicodeScalars)
            let afterAmpersand = rest.index(after: ampersand)
            if let semicolon = rest[afterAmpersand...].prefix(10).firstIndex(of: ";"),
                let scalar = scalar(for: rest[afterAmpersand..<semicolon])
            {
                output.append(scalar)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                output.append("&")
                rest = rest[afterAmpersand...]
            }
        }
        output.append(contentsOf: rest.unicodeScalars)
        return String(output)
    }

    private static func scalar(for name: Substring) -> Unicode.Scalar? {
        if let scalar = named[name] { return scalar }
        guard name.hasPrefix("#"), name.count >= 2 else { return nil }
        let digits = name.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits, radix: 10)
        }
        guard let value, value >= 0x20, value != 0x7F, !(0x80..<0xA0).contains(value),
            let scalar = Unicode.Scalar(value)
        else { return nil }
        return scalar
    }
}
