import Testing

@testable import BridgePreview

/// Tickets (single use, two minutes, secret compared whole) and sessions (12 hours, ended with their device), as
/// value types with a given clock.
@Suite struct AccessRulesTests {
    let grant = PreviewGrant(deviceId: "d1", threadId: "t1", port: 5173, connectHost: "127.0.0.1")

    @Test func aTicketIsGoodOnceForTwoMinutes() {
        var book = PreviewTicketBook()
        let (ticket, expiresAt) = book.issue(grant, now: 1000, id: "abc", secret: "s3cret")
        #expect(ticket == "abc.s3cret")
        #expect(expiresAt == 1120)
        #expect(book.redeem(ticket, now: 1119) == .success(grant))
        #expect(book.redeem(ticket, now: 1119) == .failure(.unknown))  // used

        let (late, _) = book.issue(grant, now: 2000, id: "def", secret: "s3cret")
        #expect(book.redeem(late, now: 2120) == .failure(.expired))
        #expect(book.redeem(late, now: 2000) == .failure(.unknown))  // an expired ticket is used up too
    }

    @Test func aWrongSecretIsRefusedAndLeavesTheTicket() {
        var book = PreviewTicketBook()
        let (ticket, _) = book.issue(grant, now: 0, id: "abc", secret: "right")
        #expect(book.redeem("abc.wrong", now: 1) == .failure(.unknown))
        #expect(book.redeem("abc.righ", now: 1) == .failure(.unknown))
        #expect(book.redeem("abc", now: 1) == .failure(.unknown))
        #expect(book.redeem("", now: 1) == .failure(.unknown))
        #expect(book.redeem(ticket, now: 1) == .success(grant))
    }

    @Test func aRevokedDevicesTicketsAreForgotten() {
        var book = PreviewTicketBook()
        let (mine, _) = book.issue(grant, now: 0, id: "a", secret: "x")
        var other = grant
        other.deviceId = "d2"
        let (theirs, _) = book.issue(other, now: 0, id: "b", secret: "y")
        book.forget { $0.deviceId == "d1" }
        #expect(book.redeem(mine, now: 1) == .failure(.unknown))
        #expect(book.redeem(theirs, now: 1) == .success(other))
    }

    @Test func outstandingTicketsAreBounded() {
        var book = PreviewTicketBook()
        let (first, _) = book.issue(grant, now: 0, id: "first", secret: "x")
        for index in 0..<PreviewTicketBook.maxOutstanding { _ = book.issue(grant, now: 0, id: "t\(index)", secret: "x") }
        #expect(book.count == PreviewTicketBook.maxOutstanding)
        #expect(book.redeem(first, now: 1) == .failure(.unknown))
    }

    @Test func aSessionLastsTwelveHoursAtMostAndEndsWithItsDevice() {
        var book = PreviewSessionBook()
        let opened = book.open(grant, now: 0, id: "s1", secret: "k")
        #expect(opened.cookie == "s1.k")
        #expect(book.session(cookie: "s1.k", now: 12 * 3600 - 1)?.grant == grant)
        #expect(book.session(cookie: "s1.k", now: 12 * 3600) == nil)
        #expect(book.session(cookie: "s1.x", now: 1) == nil)
        #expect(book.deviceIds == ["d1"])
        #expect(book.end(now: 1, where: { $0.deviceId == "d2" }).isEmpty)
        #expect(book.end(now: 1, where: { $0.deviceId == "d1" }) == ["s1"])
        #expect(book.session(cookie: "s1.k", now: 1) == nil)
        _ = book.open(grant, now: 0, id: "s2", secret: "k")
        #expect(book.end(now: 12 * 3600) == ["s2"])
    }

    @Test func secretsAreFreshAndComparedWhole() {
        let (id, secret) = PreviewSecret.make()
        #expect(id.count == 16)
        #expect(secret.count == 43)
        #expect(secret.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(PreviewSecret.make().secret != secret)
        #expect(PreviewSecret.equals("abc", "abc"))
        #expect(!PreviewSecret.equals("abc", "abd"))
        #expect(!PreviewSecret.equals("abc", "abcd"))
        #expect(PreviewSecret.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test func theCookieIsNamedAfterItsOriginHttpOnlyStrictAndSecureUnderTLS() {
        #expect(
            PreviewCookie.setCookie(port: 9102, value: "v", maxAge: 43200, secure: true)
                == "codex_bridge_preview_9102=v; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure")
        #expect(!PreviewCookie.setCookie(port: 9102, value: "v", maxAge: 1, secure: false).contains("Secure"))
        #expect(PreviewCookie.expired(port: 9102, secure: false).hasPrefix("codex_bridge_preview_9102=; Path=/; Max-Age=0;"))
        // Only the cookie of the origin asked for, read as a browser sends it (whitespace around the name).
        let headers = ["a=1; codex_bridge_preview_9102=x.y; codex_bridge_preview_9103=b.c", " codex_bridge_preview_9102 = z"]
        #expect(PreviewCookie.values(port: 9102, inCookieHeaders: headers) == ["x.y", "z"])
        #expect(PreviewCookie.values(port: 9104, inCookieHeaders: headers).isEmpty)
        // No preview's cookie reaches a dev server, nor what a browser would read as one.
        #expect(PreviewCookie.stripped("a=1; codex_bridge_preview_9102=x.y; b=2; codex_bridge_preview_9103=c.d") == "a=1; b=2")
        #expect(PreviewCookie.stripped("codex_bridge_preview_9102=x.y") == nil)
        #expect(PreviewCookie.stripped("a=1;  codex_bridge_preview_1 =x; Codex_Bridge_x=1") == "a=1")
    }

    /// RFC 6265bis 5.6 as browsers parse a `Set-Cookie`: the name precedes the first `=`, trimmed; without `=` the
    /// cookie is nameless and sent as its value alone. Each of these would set or shadow a bridge cookie.
    @Test func aDevServersSetCookieIsOursWhenABrowserWouldReadItAsOurs() {
        let forged = [
            "codex_bridge_preview_9102=evil; Path=/", "codex_bridge_preview_9102 =evil", " codex_bridge_preview_9102=evil",
            "codex_bridge_preview_9102\t=evil", "=codex_bridge_preview_9102=evil", "codex_bridge_preview_9102",
            "CODEX_BRIDGE_PREVIEW_9102=evil", "__Host-codex_bridge_preview_9102=evil; Secure; Path=/",
            "__Secure-codex_bridge_preview_9102=evil; Secure", "codex_bridge_preview=evil; Path=/deep", " = codex_bridge_x=1",
        ]
        for value in forged { #expect(PreviewCookie.isOurs(setCookie: value), "\(value)") }
        for value in ["theme=dark", "codex=1", "bridge_preview=1", "=", "", "a=codex_bridge_preview_9102", "x_codex_bridge=1"] {
            #expect(!PreviewCookie.isOurs(setCookie: value), "\(value)")
        }
    }
}

/// The shared access: a redeemed ticket's session, its connections closed when it ends, a clock that moves.
@Suite struct PreviewAccessTests {
    final class Clock: @unchecked Sendable {
        // Tests only: set before each call on one task.
        var now: Double = 1000
    }

    final class Connection {}

    @Test func aSessionsConnectionsAreClosedWhenItsDeviceGoes() throws {
        let clock = Clock()
        let access = PreviewAccess(clock: { clock.now })
        let grant = PreviewGrant(deviceId: "d1", threadId: "t1", port: 5173, connectHost: "127.0.0.1")
        access.originListening(port: 9102)
        let (ticket, _, origin) = try access.issue(grant)
        #expect(origin == 9102)
        var issued = grant
        issued.originPort = 9102
        guard case .success(let redeemed) = access.redeem(ticket) else {
            Issue.record("ticket refused")
            return
        }
        #expect(access.redeem(ticket).map { _ in true } == .failure(.unknown))
        let cookie = redeemed.cookie.split(separator: ".")
        #expect(cookie.count == 2 && cookie[1].count == 43)
        #expect(access.session(cookies: ["x.y", redeemed.cookie], originPort: 9102)?.grant == issued)
        // The cookie reaches every port of the host; it opens only its own origin.
        #expect(access.session(cookies: [redeemed.cookie], originPort: 9103) == nil)

        let connection = Connection()
        let closed = ClosedCount()
        #expect(access.track(ObjectIdentifier(connection), session: redeemed.session.id) { closed.add() } == .added)
        #expect(access.track(ObjectIdentifier(connection), session: redeemed.session.id) { closed.add() } == .already)
        #expect(access.deviceIds == ["d1"])
        #expect(access.end { $0.deviceId == "d2" }.isEmpty)
        #expect(closed.count == 0)
        #expect(access.end { $0.deviceId == "d1" } == [redeemed.session.id])
        #expect(closed.count == 1)
        #expect(access.session(cookies: [redeemed.cookie], originPort: 9102) == nil)
        #expect(access.track(ObjectIdentifier(connection), session: redeemed.session.id) { closed.add() } == .ended)

        // Twelve hours later a session ends by itself; a ticket two minutes old is refused.
        let (late, _, _) = try access.issue(grant)
        guard case .success(let second) = access.redeem(late) else {
            Issue.record("ticket refused")
            return
        }
        let (stale, _, _) = try access.issue(grant)
        clock.now += 12 * 3600
        #expect(access.redeem(stale).map { _ in true } == .failure(.expired))
        #expect(access.session(cookies: [second.cookie], originPort: 9102) == nil)
        #expect(access.end() == [second.session.id])
    }

    final class ClosedCount: @unchecked Sendable {
        // Tests only: the closures run synchronously inside `end`.
        var count = 0
        func add() { count += 1 }
    }
}
