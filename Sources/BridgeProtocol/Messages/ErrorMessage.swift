/// `{"kind":"error","id":"…","code":"…","message":"…"}`: the answer to a request that failed, or to a frame
/// that could not be understood (then `id` is absent when it could not be read).
public struct ErrorMessage: Codable, Sendable, Hashable, Error {
    public var id: String?
    public var code: BridgeErrorCode
    public var message: String

    public init(id: String?, code: BridgeErrorCode, message: String) {
        self.id = id
        self.code = code
        self.message = message
    }
}
