import Foundation

/// Names the stations of one recorder apart: each gets a label that is also its folder, distinct
/// even when two stations share a name (or a URL names itself after its host), compared without
/// case (FAT, exFAT and SMB ignore it). A second "Jazz" becomes "Jazz (2)".
public struct StationLabels: Sendable {
    private var taken: Set<String> = []

    /// The longest label, in UTF-8 bytes.
    public static let maximumBytes = 200

    public init() {}

    /// A label for `name`, never one given before; characters a folder name cannot hold are replaced.
    public mutating func label(for name: String) -> String {
        var base = String(
            name.unicodeScalars.map { scalar -> Character in
                if scalar.value < 0x20 || scalar.value == 0x7F || "/\\:*?\"<>|".unicodeScalars.contains(scalar) { return "_" }
                return Character(scalar)
            }
        ).trimmingCharacters(in: .whitespaces)
        while base.hasSuffix(".") { base.removeLast() }
        if base.isEmpty || base == "." || base == ".." { base = "station" }
        // A folder name is at most 255 bytes (ext4, btrfs, XFS): 200 leave room for " (N)" and more.
        // Counted in bytes, not characters: 100 emoji are 400 bytes.
        while base.utf8.count > Self.maximumBytes { base.removeLast() }
        var candidate = base
        var number = 2
        while taken.contains(candidate.lowercased()) {
            candidate = "\(base) (\(number))"
            number += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }

    /// Gives a label back (a station removed while recording).
    public mutating func release(_ label: String) {
        taken.remove(label.lowercased())
    }
}
