import OtonEvents

extension TitleEncodingSetting {
    /// The code page the station names, if it names one.
    package var codePage: LegacyCodePage? {
        switch self {
        case .auto, .utf8: nil
        case .windows1251: .windows1251
        case .koi8r: .koi8r
        case .latin1: .latin1
        }
    }
}
