#!/usr/bin/python3
"""A TLS front for a plain HTTP server on loopback, for the HTTPS tests.

    tls_proxy.py CERT KEY UPSTREAM_PORT

Listens on 127.0.0.1 (a free port), prints "PORT <n>" on standard output,
and for every client that completes a TLS handshake opens a plain TCP
connection to 127.0.0.1:UPSTREAM_PORT and copies bytes both ways. Prints
"HANDSHAKE ok" or "HANDSHAKE failed <reason>" per client, so a test can tell
a refused certificate from a broken stream. Runs until killed.
"""
import socket
import ssl
import sys
import threading


def pump(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, target):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(client, context, upstream_port):
    try:
        secure = context.wrap_socket(client, server_side=True)
    except (ssl.SSLError, OSError) as error:
        print("HANDSHAKE failed", error, flush=True)
        client.close()
        return
    print("HANDSHAKE ok", flush=True)
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    threading.Thread(target=pump, args=(secure, upstream), daemon=True).start()
    pump(upstream, secure)


def main():
    cert, key, upstream_port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print("PORT", listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, context, upstream_port), daemon=True).start()


if __name__ == "__main__":
    main()
