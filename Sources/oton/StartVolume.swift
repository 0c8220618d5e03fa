import ArgumentParser
import OtonHost

/// `oton play --volume`: the volume grammar of `oton ctl volume`, absolute values only.
enum StartVolume {
    static func percent(_ text: String) throws -> Int {
        switch VolumeArgument.parse(text) {
        case let .success(.absolute(percent)): return percent
        case .success(.relative):
            throw ValidationError(tr("a start volume is a percentage from 0 to 150, such as 50 (+N/-N change a running oton's volume: oton ctl volume +5)"))
        case let .failure(error): throw ValidationError(String(error.reason.drop { $0 == ":" || $0 == " " }))
        }
    }
}
