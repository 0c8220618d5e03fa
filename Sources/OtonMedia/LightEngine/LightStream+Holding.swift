import CCurl
import OtonSupport

/// Holding a light connection back (issue 39, N2 and N14): the flood guard holds a station that
/// sends far more than its rate, and the driver holds stations already receiving while another is
/// still connecting, so that one connecting station does not make every station read per packet.
/// A held connection is not read: its socket fills and TCP slows the server down.
///
/// Driver thread only (curl's write callback and the driver's turns).
extension LightStream {
    /// Write callback: whether these bytes wait (they are handed over again once resumed).
    func holdsBack(_ count: Int) -> Bool {
        switch flood.admit(count, now: Clock.monotonicNanoseconds()) {
        case .read:
            return false
        case let .hold(firstTime):
            heldByFlood = true
            holding = true
            if firstTime { reportFlood() }
            return true
        }
    }

    /// Each turn of the driver: held for the driver or not; a connection the flood guard held is
    /// resumed once it may be read again. Resuming may hand held bytes over at once.
    func updateHolding(driverHolds: Bool) {
        guard let easy else { return }
        heldByDriver = driverHolds
        if heldByFlood && flood.mayResume(now: Clock.monotonicNanoseconds()) { heldByFlood = false }
        let wanted = heldByFlood || heldByDriver
        guard wanted != holding else { return }
        holding = wanted
        _ = oton_curl_hold_receiving(easy, wanted ? 1 : 0)
    }

    private func reportFlood() {
        let now = Clock.monotonicNanoseconds()
        let rate = String(flood.averageBytesPerSecond(now: now) / 1024)
        let limit = String(flood.limit / 1024)
        let text: String
        if let declared = flood.declaredBitsPerSecond {
            text = tr(
                "{url}: the station sends {rate} KiB/s, more than {factor}× the {declared} kbit/s it declares; it is read at {limit} KiB/s from now on, so that it cannot fill the disk the other stations record to",
                ["url": description.url, "rate": rate, "factor": String(FloodGuard.factor), "declared": String(declared / 1000), "limit": limit])
        } else {
            text = tr(
                "{url}: the station sends {rate} KiB/s, more than any radio stream needs; it is read at {limit} KiB/s from now on, so that it cannot fill the disk the other stations record to",
                ["url": description.url, "rate": rate, "limit": limit])
        }
        report(.notice(text))
    }
}
