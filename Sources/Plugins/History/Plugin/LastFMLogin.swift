import FoundationEssentials
import HistoryLogic
import OtonJSON

/// Last.fm's desktop authentication: auth.getToken, the user authorizes the
/// token in a browser, auth.getSession turns it into a session key, which is
/// stored in a file with mode 0600.
struct LastFMLogin {
    let config: HistoryConfig.LastFM
    let apiKey: String
    let apiSecret: String
    let sessionKeyFile: String

    enum Reply {
        case ok(String)
        case pending(String)
        case failed(String)
    }

    private func call(_ parameters: [(String, String)]) -> Result<[String: JSONValue], LoginError> {
        let transport = HTTPTransport(timeout: 8)
        let form = LastFMProtocol.signedForm(parameters, secret: apiSecret, md5: LastFMService.md5)
        switch transport.post(config.url, headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"], body: Data(form.utf8)) {
        case let .failure(failure):
            return .failure(LoginError(code: nil, message: "cannot reach Last.fm at \(config.url): \(failure.description)"))
        case let .success(answer):
            if let (code, message) = LastFMProtocol.error(in: answer.body) {
                return .failure(LoginError(code: code, message: "Last.fm error \(code): \(message)"))
            }
            guard (200..<300).contains(answer.status),
                let object = (try? JSONValue.parse(Data(answer.body)))?.objectValue
            else {
                return .failure(LoginError(code: nil, message: "Last.fm answered HTTP \(answer.status) without a usable JSON body"))
            }
            return .success(object)
        }
    }

    struct LoginError: Error {
        let code: Int?
        let message: String
    }

    /// Step 1: a token and the URL where the user authorizes it, as JSON {"token", "url"}.
    func start() -> Reply {
        switch call([("method", "auth.getToken"), ("api_key", apiKey)]) {
        case let .failure(error):
            return .failed(error.message)
        case let .success(object):
            guard let token = object["token"]?.stringValue, !token.isEmpty,
                token.allSatisfy({ $0.isLetter || $0.isNumber })
            else {
                return .failed("Last.fm's auth.getToken answer has no token")
            }
            let url = config.authURL + "?api_key=" + LastFMProtocol.formEncode(apiKey) + "&token=" + LastFMProtocol.formEncode(token)
            return .ok(JSONValue.object(["token": .string(token), "url": .string(url)]).jsonText)
        }
    }

    /// Step 2: the session key for an authorized token, stored in the session key file.
    func finish(token: String) -> Reply {
        switch call([("method", "auth.getSession"), ("api_key", apiKey), ("token", token)]) {
        case let .failure(error) where error.code == 14:
            return .pending("pending: the token is not authorized yet")
        case let .failure(error):
            return .failed(error.message)
        case let .success(object):
            guard let key = object["session"]?["key"]?.stringValue, !key.isEmpty else {
                return .failed("Last.fm's auth.getSession answer has no session key")
            }
            do {
                try SecretReader.writeFile(sessionKeyFile, secret: key)
            } catch {
                return .failed("\(error)")
            }
            let user = LastFMProtocol.displayName(object["session"]?["name"]?.stringValue).map { " as \($0)" } ?? ""
            return .ok("Logged in to Last.fm\(user); the session key is stored in \(sessionKeyFile) (mode 0600). Restart oton play to scrobble.")
        }
    }
}
