import Foundation

/// Which certificate authorities HTTPS servers are checked against: a PEM file instead of the
/// system's (a station with a private CA), from the SSL_CERT_FILE environment variable as OpenSSL,
/// the curl tool and Python read it. One answer for every HTTPS request oton makes — the player's
/// stream and everything GStreamer fetches for it, the resolver's playlist fetches, the status API,
/// the recorder's light engine and the plugins' requests. Verification is never switched off.
public enum TrustedAuthorities {
    /// nil: the system's authorities.
    public static let caFile: String? = ProcessInfo.processInfo.environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
}
