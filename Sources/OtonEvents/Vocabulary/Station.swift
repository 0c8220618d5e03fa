import OtonSupport

/// A station a listener can play.
public struct Station: Equatable, Sendable {
    public var name: String
    public var url: String
    /// A status API (radio.co status or Icecast status-json.xsl) polled for titles and artwork.
    public var statusURL: String?
    public var logoURL: String?
    public var homepage: String?
    /// How the station's titles are encoded ("title_encoding"); `.auto` guesses.
    public var titleEncoding: TitleEncodingSetting = .auto
    /// The User-Agent the station's server is to see ("user_agent"), for a server that answers only
    /// some players; nil: oton's own.
    public var userAgent: String?

    /// The User-Agent of every request made for this station.
    public var requestUserAgent: String { userAgent ?? OtonVersion.userAgent }

    public init(
        name: String, url: String, statusURL: String? = nil, logoURL: String? = nil, homepage: String? = nil,
        titleEncoding: TitleEncodingSetting = .auto, userAgent: String? = nil
    ) {
        self.titleEncoding = titleEncoding
        self.userAgent = userAgent
        self.name = name
        self.url = url
        self.statusURL = statusURL
        self.logoURL = logoURL
        self.homepage = homepage
    }
}
