import OtonEvents

/// How the bytes of a title were interpreted.
public enum TitleEncoding: String, Sendable, Equatable {
    /// Valid UTF-8.
    case utf8
    /// Mostly UTF-8 with a few broken sequences (truncated last character,
    /// stray surrogate halves, overlong forms); the broken sequences were dropped.
    case utf8Repaired
    /// Not UTF-8; decoded as Windows-1251 (Cyrillic).
    case windows1251
    /// Not UTF-8; decoded as Latin-1 / Windows-1252.
    case latin1
    /// Decoded as KOI8-R because the station says so (never guessed).
    case koi8r
}

/// A decoded title together with the interpretation that was chosen.
public struct DecodedTitle: Equatable, Sendable {
    public var text: String
    public var encoding: TitleEncoding

    public init(text: String, encoding: TitleEncoding) {
        self.text = text
        self.encoding = encoding
    }
}

/// Turns untrusted title bytes (from ICY metadata or a GStreamer tag) into a
/// `String`. Never fails and never traps.
///
/// Decision order:
/// 1. Valid UTF-8 → `.utf8`. (Swift's validator rejects overlong forms and
///    encoded surrogates such as `ED A0 80`, so those never count as valid.)
/// 2. At least one valid multi-byte UTF-8 sequence and no more runs of
///    broken bytes than valid multi-byte sequences → `.utf8Repaired`: the text is
///    UTF-8 that got damaged (typically cut mid-character by a server's
///    length limit); broken sequences are dropped. Legacy 8-bit text almost
///    never forms valid multi-byte sequences, so it fails this test.
/// 3. Otherwise the text is a legacy 8-bit encoding; see
///    ``guessLegacyCodePage(_:)``.
public enum TitleByteDecoder {
    /// Input beyond this many bytes is ignored (cut on a UTF-8 boundary),
    /// bounding the work done for hostile metadata.
    public static let maxInputBytes = 16 * 1024

    public static func decode(_ bytes: [UInt8]) -> DecodedTitle {
        let input = capped(bytes)
        if let valid = String(validating: input, as: UTF8.self) {
            return DecodedTitle(text: valid, encoding: .utf8)
        }
        let lenient = decodeUTF8DroppingErrors(input)
        if lenient.multiByteScalars > 0, lenient.errorRuns <= lenient.multiByteScalars {
            return DecodedTitle(text: lenient.text, encoding: .utf8Repaired)
        }
        let page = guessLegacyCodePage(input)
        return DecodedTitle(text: page.decode(input), encoding: page.titleEncoding)
    }

    /// Decodes bytes as they came off the wire (the light engine reads ICY metadata itself), as the
    /// station's `title_encoding` says: `auto` guesses (``decode(_:)``), the others are taken as said.
    public static func decode(_ bytes: [UInt8], setting: TitleEncodingSetting) -> DecodedTitle {
        if setting == .utf8 {
            let input = capped(bytes)
            return DecodedTitle(text: String(decoding: input, as: UTF8.self), encoding: .utf8)
        }
        guard let page = setting.codePage else { return decode(bytes) }
        if bytes.allSatisfy({ $0 < 0x80 }) { return DecodedTitle(text: String(decoding: capped(bytes), as: UTF8.self), encoding: .utf8) }
        return DecodedTitle(text: page.decode(capped(bytes)), encoding: page.titleEncoding)
    }

    /// Decodes text that GStreamer already converted to UTF-8, recovering what
    /// the server really sent.
    ///
    /// GStreamer's icydemux (and Icecast's status-json) turn title bytes that
    /// are not UTF-8 into text as if they were Latin-1, so Windows-1251
    /// "Кино" arrives as "Êèíî". When every character is at most U+00FF the
    /// text *is* the original bytes read as Latin-1: those bytes go through
    /// ``decode(_:)`` (or the station's code page). Text with any character
    /// above U+00FF was valid UTF-8 on the wire and is kept as it is, unless
    /// the station names a code page (then its UTF-8 bytes are what was sent).
    /// Pure ASCII never changes.
    public static func decode(convertedText text: String, setting: TitleEncodingSetting = .auto) -> DecodedTitle {
        if setting == .utf8 || text.utf8.allSatisfy({ $0 < 0x80 }) {
            return DecodedTitle(text: text, encoding: .utf8)
        }
        let latin1Bytes = originalLatin1Bytes(text)
        guard let page = setting.codePage else {
            guard let latin1Bytes else { return DecodedTitle(text: text, encoding: .utf8) }
            return decode(latin1Bytes)
        }
        let bytes = capped(latin1Bytes ?? Array(text.utf8))
        return DecodedTitle(text: page.decode(bytes), encoding: page.titleEncoding)
    }

    /// The bytes a Latin-1 reading turned into `text`, or nil when a character is above U+00FF.
    package static func originalLatin1Bytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(text.utf8.count, maxInputBytes))
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return nil }
            bytes.append(UInt8(scalar.value))
            if bytes.count > maxInputBytes { break }
        }
        return bytes
    }

    /// Chooses between Windows-1251 and Latin-1 for non-UTF-8 bytes.
    ///
    /// Windows-1251 is chosen when all of these hold:
    /// - (a) there is at least one byte in 0xC0–0xFF (where both code pages
    ///   keep letters: А–я in 1251, À–ÿ in Latin-1);
    /// - (b) bytes in 0x80–0xBF number at most half of those in 0xC0–0xFF
    ///   (Russian text uses 0x80–0xBF only for ё/Ё, Ukrainian letters and
    ///   punctuation, while Latin-1 puts symbols such as ©, °, ¿ there);
    /// - (c) at most a quarter of the 0xC0–0xFF bytes sit directly next to an
    ///   ASCII letter. Cyrillic words consist only of high bytes, whereas
    ///   accented Latin letters sit inside ASCII words ("Müller", "Coração").
    ///
    /// Otherwise Latin-1 (with Windows-1252 punctuation in 0x80–0x9F).
    /// A lone ambiguous letter such as `C9` ("Щ" or "É") goes to Windows-1251.
    public static func guessLegacyCodePage(_ bytes: [UInt8]) -> LegacyCodePage {
        var high = 0, middle = 0, highNextToASCIILetter = 0
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case 0xC0...0xFF:
                high += 1
                let before = index > 0 ? bytes[index - 1] : 0x20
                let after = index + 1 < bytes.count ? bytes[index + 1] : 0x20
                if isASCIILetter(before) || isASCIILetter(after) { highNextToASCIILetter += 1 }
            case 0x80...0xBF:
                middle += 1
            default:
                break
            }
        }
        let isCyrillic = high > 0 && middle * 2 <= high && highNextToASCIILetter * 4 <= high
        return isCyrillic ? .windows1251 : .latin1
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// Keeps at most `maxInputBytes`, backing off so no UTF-8 sequence is cut.
    private static func capped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count > maxInputBytes else { return bytes }
        var end = maxInputBytes
        var steps = 0
        while end > 0, steps < 3, (0x80...0xBF).contains(bytes[end]) {
            end -= 1
            steps += 1
        }
        return Array(bytes[..<end])
    }

    private static func decodeUTF8DroppingErrors(_ bytes: [UInt8]) -> (text: String, multiByteScalars: Int, errorRuns: Int) {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var scalars = String.UnicodeScalarView()
        var multiByte = 0, errorRuns = 0, inErrorRun = false
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                if encoded.count > 1 { multiByte += 1 }
                inErrorRun = false
            case .error:
                if !inErrorRun { errorRuns += 1 }
                inErrorRun = true
            case .emptyInput:
                break loop
            }
        }
        return (String(scalars), multiByte, errorRuns)
    }
}

extension LegacyCodePage {
    package var titleEncoding: TitleEncoding {
        switch self {
        case .windows1251: .windows1251
        case .latin1: .latin1
        case .koi8r: .koi8r
        }
    }
}
