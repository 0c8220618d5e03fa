import CCurl

/// The security settings of every libcurl transfer oton makes (the light engine's streams, the
/// capped GET of the resolver, the status API and the plugins): http and https only, also after
/// a redirect; the peer and its host name always verified, against ``TrustedAuthorities``; no
/// signals (transfers run on threads of their own).
public enum CurlSecurity {
    public static func apply(to curl: UnsafeMutableRawPointer) {
        oton_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
        oton_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        oton_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
        oton_curl_set_long(curl, CURLOPT_SSL_VERIFYPEER, 1)
        oton_curl_set_long(curl, CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = TrustedAuthorities.caFile { oton_curl_set_string(curl, CURLOPT_CAINFO, caFile) }
    }
}
