"""Issue 45 item 3: the live channel's contract at the real binary's socket (BRIDGE.md "Live channel"): what
`helloAck.live` says, binary frames before and after the handshake, the errors a frame on no stream gets, the
size limit, and that a client sending bad frames disturbs no one else. Bytes both ways on an open stream, the
watermarks against a slow reader and the flood close are proven over a real socket at the Swift level
(Tests/BridgeServerTests/LiveChannelSocketTests.swift), where a stream can be opened without voice."""
import asyncio
import struct

from wsutil import connect, expect_close, hello, recv, send


def frame(kind, stream, payload=b""):
    return struct.pack(">BBI", 1, kind, stream) + payload


async def test_hello_ack_tells_the_live_channels_limits(bridge):
    ws, ack = await hello(bridge)
    assert ack["live"] == {"version": 1, "maxFrame": 65536, "highWater": 131072, "lowWater": 32768}
    await ws.close()


async def test_a_live_frame_in_place_of_hello_closes_1008(bridge):
    ws = await connect(bridge)
    await ws.send(frame(0, 1, b"audio"))
    assert (await expect_close(ws))[0] == 1008


async def test_frames_on_no_stream_get_errors_and_the_connection_stays(bridge):
    ws, _ = await hello(bridge)
    await ws.send(frame(0, 9, b"\x01\x02"))
    assert await recv(ws) == {"kind": "error", "code": "unknown_stream", "streamId": 9,
                              "message": "no live stream 9 on this connection"}
    await ws.send(frame(1, 0))  # a pause on stream 0, which is never given
    err = await recv(ws)
    assert (err["code"], err["streamId"]) == ("unknown_stream", 0)
    await ws.send(frame(0, 3, b"x" * 65531))  # 65537 bytes with the header: one over maxFrame
    err = await recv(ws)
    assert (err["code"], err["streamId"]) == ("too_large", 3)
    await ws.send(b"\x01\x00\x00")  # shorter than the header
    err = await recv(ws)
    assert err["code"] == "bad_request" and "streamId" not in err
    await ws.send(frame(0, 4))  # a data frame without bytes
    err = await recv(ws)
    assert (err["code"], err["streamId"]) == ("bad_request", 4)
    await ws.send(frame(7, 5))  # a frame type of a later version: ignored
    await send(ws, {"kind": "ping", "nonce": "still open"})
    assert await recv(ws) == {"kind": "pong", "nonce": "still open"}
    await ws.close()


async def test_a_binary_frame_right_behind_hello_is_answered_after_the_ack(bridge):
    ws = await connect(bridge)
    await send(ws, {"kind": "hello", "version": 1, "token": bridge.token})
    await ws.send(frame(0, 1, b"early"))
    assert (await recv(ws))["kind"] == "helloAck"
    err = await recv(ws)
    assert (err["code"], err["streamId"]) == ("unknown_stream", 1)
    await ws.close()


async def test_a_binary_message_over_the_transport_limit_closes_1009(bridge):
    ws, _ = await hello(bridge)
    await ws.send(frame(0, 1, b"x" * (1 << 20)))
    assert (await expect_close(ws))[0] == 1009


async def test_a_client_sending_bad_frames_disturbs_no_other(bridge):
    bad, _ = await hello(bridge)
    good, _ = await hello(bridge)
    flood = [frame(0, 1000 + i, b"x" * 1000) for i in range(2000)]

    async def send_flood():
        for message in flood:
            await bad.send(message)

    flooding = asyncio.create_task(send_flood())
    loop = asyncio.get_running_loop()
    for i in range(20):
        started = loop.time()
        await send(good, {"kind": "ping", "nonce": f"n{i}"})
        assert await recv(good) == {"kind": "pong", "nonce": f"n{i}"}
        assert loop.time() - started < 1.0
    await flooding
    await send(good, {"kind": "ping", "nonce": "after"})
    assert (await recv(good))["nonce"] == "after"
    await good.close()
    await bad.close()
