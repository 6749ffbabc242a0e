#!/usr/bin/env python3
"""A stand-in for the Firebase Auth emulator's Identity Toolkit v1 and Secure Token endpoints.

Test support for AuthFlow's HTTP interpreter, written from the public Firebase wire facts that
Docs/HTTP.md lists: the emulator's URL layout, error envelope, the
200 + errorMessage link conflict, unsigned ID tokens with the production claim layout, and
base64 refresh tokens. Standard library only; listens on 127.0.0.1 only.

    python3 firebase_standin.py [--port N] [--project demo-authflow]

prints "READY <port>" once it accepts requests. Test-only endpoints under /_standin/:
  POST /_standin/faults  {"op": "signUp"|"token"|..., "status": 503, "body": "...",
                          "contentType": "text/html", "delay": 2.5, "truncate": true}
                         queues one faulty answer for the next request of that operation
  POST /_standin/disable {"localId": "..."}   disables a user (USER_DISABLED from then on)
  POST /_standin/reset                        forgets every user and fault
  GET  /_standin/users                        every user, for assertions
"""
import argparse
import base64
import hashlib
import json
import os
import random
import signal
import string
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
USERS = {}          # localId -> user dict; user["links"] = {providerId: sub}
FAULTS = {}         # op -> [fault]
PROJECT = "demo-authflow"
SPENT = set()       # (id_token, nonce) pairs already used with a nonce: Apple refuses a repeat
PENDING = {}        # pendingToken -> (providerId, sub, email), single use
REVOKED = []        # [{"providerId", "token", "localId"}] from accounts:revokeToken
GOOGLE_REVOKED = [] # tokens sent to the Google OAuth revocation endpoint
REFRESHES = []      # localId of every successful refresh, in order (the multi-process tests count them)


def new_id():
    return "".join(random.choice(string.ascii_letters + string.digits) for _ in range(28))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


class Fail(Exception):
    def __init__(self, message, status=400):
        super().__init__(message)
        self.message = message
        self.status = status


def id_token(user, sign_in_provider):
    now = int(time.time())
    identities = {p: [sub] for p, sub in sorted(user.get("links", {}).items())}
    if user.get("email") and user.get("password") is not None:
        identities["email"] = [user["email"]]
    claims = {
        "iss": "https://securetoken.google.com/" + PROJECT, "aud": PROJECT,
        "sub": user["localId"], "user_id": user["localId"], "iat": now, "exp": now + 3600,
        "auth_time": user.get("authTime", now),
        "firebase": {"identities": identities, "sign_in_provider": sign_in_provider},
    }
    if user.get("anonymous"):
        claims["provider_id"] = "anonymous"
    if user.get("email"):
        claims["email"] = user["email"]
        claims["email_verified"] = bool(user.get("links"))
    header = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return header + "." + b64url(json.dumps(claims).encode()) + "."


def refresh_token(user, provider):
    payload = {"_AuthEmulatorRefreshToken": "DO NOT MODIFY", "localId": user["localId"],
               "provider": provider, "projectId": PROJECT, "n": random.random()}
    return base64.b64encode(json.dumps(payload).encode()).decode()


def tokens(user, provider):
    user["provider"] = provider
    return {"localId": user["localId"], "idToken": id_token(user, provider),
            "refreshToken": refresh_token(user, provider), "expiresIn": "3600"}


def user_from_id_token(token):
    if not isinstance(token, str) or token.count(".") != 2:
        raise Fail("INVALID_ID_TOKEN")
    try:
        claims = json.loads(unb64(token.split(".")[1]))
    except Exception:
        raise Fail("INVALID_ID_TOKEN")
    user = USERS.get(claims.get("user_id"))
    if user is None:
        raise Fail("USER_NOT_FOUND")
    if user.get("disabled"):
        raise Fail("USER_DISABLED")
    if claims.get("iat", 0) < user.get("validSince", 0):
        raise Fail("TOKEN_EXPIRED")
    return user


def check_password(password):
    if password is None:
        raise Fail("MISSING_PASSWORD")
    if len(password) < 6:
        raise Fail("WEAK_PASSWORD : Password should be at least 6 characters")


def find_email(email):
    for u in USERS.values():
        if u.get("email") == email:
            return u
    return None


def idp_claims(fields):
    """The claims of the ID token (a JWT or, as the emulator allows, raw JSON), or of an
    access token given as JSON (github.com in tests)."""
    raw = (fields.get("id_token") or [None])[0]
    access = (fields.get("access_token") or [None])[0]
    source = raw if raw is not None else access
    if source is None:
        raise Fail("INVALID_IDP_RESPONSE : Missing id_token or access_token", 400)
    try:
        if source.startswith("{"):
            claims = json.loads(source)
        else:
            claims = json.loads(unb64(source.split(".")[1]))
    except Exception:
        raise Fail("INVALID_IDP_RESPONSE : ((Unable to parse id_token))")
    if not isinstance(claims, dict) or not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise Fail("INVALID_IDP_RESPONSE : ((Missing sub))")
    return raw, access, claims


def check_apple_nonce(raw, nonce, claims):
    """Production's Apple rules: the ID token's nonce claim is the SHA-256 (lowercase hex) of
    the raw nonce in the request, and an (id_token, nonce) pair is accepted once."""
    claim = claims.get("nonce")
    if claim is not None and nonce is None:
        raise Fail("MISSING_OR_INVALID_NONCE : Nonce is missing in the request.")
    if nonce is not None:
        if hashlib.sha256(nonce.encode()).hexdigest() != claim:
            raise Fail('MISSING_OR_INVALID_NONCE : The nonce in ID Token "%s" does not match '
                       'the SHA256 hash of the raw nonce "%s" in the request.' % (claim, nonce))
        if (raw, nonce) in SPENT:
            raise Fail("MISSING_OR_INVALID_NONCE : Duplicate credential received. Please try "
                       "again with a new credential.")
        SPENT.add((raw, nonce))


def op_signUp(body):
    if body.get("idToken"):
        user = user_from_id_token(body["idToken"])
        email, password = body.get("email"), body.get("password")
        if email is None:
            raise Fail("MISSING_EMAIL")
        other = find_email(email)
        if other is not None and other is not user:
            raise Fail("EMAIL_EXISTS")
        check_password(password)
        user.update(email=email, password=password, anonymous=False)
        return dict(tokens(user, "password"), email=email)
    if "email" in body or "password" in body:
        email, password = body.get("email"), body.get("password")
        if not email:
            raise Fail("MISSING_EMAIL")
        if find_email(email):
            raise Fail("EMAIL_EXISTS")
        check_password(password)
        user = {"localId": new_id(), "email": email, "password": password, "anonymous": False}
        USERS[user["localId"]] = user
        return dict(tokens(user, "password"), email=email,
                    kind="identitytoolkit#SignupNewUserResponse")
    user = {"localId": new_id(), "anonymous": True}
    USERS[user["localId"]] = user
    return dict(tokens(user, "anonymous"), kind="identitytoolkit#SignupNewUserResponse")


def owner_of(provider, sub):
    return next((u for u in USERS.values() if u.get("links", {}).get(provider) == sub), None)


def display_name(fields):
    try:
        name = json.loads((fields.get("user") or ["{}"])[0]).get("name") or {}
    except ValueError:
        raise Fail("INVALID_IDP_RESPONSE : ((Unable to parse user))")
    parts = [name.get("firstName"), name.get("lastName")]
    return " ".join(p for p in parts if p) or None


def op_signInWithIdp(body):
    if not body.get("requestUri"):
        raise Fail("MISSING_REQUEST_URI")
    fields = urllib.parse.parse_qs(body.get("postBody") or "")
    pending = body.get("pendingToken")
    if pending is not None:
        # A retry after a link conflict: the pending token stands for the provider account.
        if pending not in PENDING:
            raise Fail("INVALID_PENDING_TOKEN")
        provider, sub, email = PENDING.pop(pending)
        raw = access = None
    else:
        provider = (fields.get("providerId") or [None])[0]
        if not provider:
            raise Fail("INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential")
        provider = provider.lower()
        raw, access, claims = idp_claims(fields)
        if provider == "apple.com":
            check_apple_nonce(raw, (fields.get("nonce") or [None])[0], claims)
        sub, email = claims["sub"], (claims.get("email") or "").lower() or None
    name = display_name(fields)
    owner = owner_of(provider, sub)
    echo = {"providerId": provider, "federatedId": sub,
            "kind": "identitytoolkit#VerifyAssertionResponse"}
    if raw is not None:
        echo["oauthIdToken"] = raw
    if provider == "google.com":
        echo["federatedId"] = "https://accounts.google.com/" + sub
        echo["oauthAccessToken"] = access or "FirebaseAuthEmulatorFakeAccessToken_google.com"
    elif access is not None:
        echo["oauthAccessToken"] = access
    if email:
        echo["email"] = email
    if body.get("idToken"):
        user = user_from_id_token(body["idToken"])
        if owner is not None and owner is not user:
            if provider == "apple.com":
                token = "pending-" + new_id()
                PENDING[token] = (provider, sub, email)
                echo["pendingToken"] = token
            if body.get("returnIdpCredential"):
                return dict(echo, errorMessage="FEDERATED_USER_ID_ALREADY_LINKED")
            raise Fail("FEDERATED_USER_ID_ALREADY_LINKED")
        user.setdefault("links", {})[provider] = sub
        user["anonymous"] = False
        if email and not user.get("email"):
            user["email"] = email
        if name and not user.get("displayName"):
            user["displayName"] = name
        return dict(echo, **tokens(user, provider), email=user.get("email"),
                    displayName=user.get("displayName"), isNewUser=False)
    if owner is None and email:
        owner = find_email(email)
        if owner is not None:
            owner.setdefault("links", {})[provider] = sub
    is_new = owner is None
    if owner is None:
        owner = {"localId": new_id(), "links": {provider: sub}, "email": email,
                 "anonymous": False, "displayName": name}
        USERS[owner["localId"]] = owner
    if owner.get("disabled"):
        raise Fail("USER_DISABLED")
    owner["authTime"] = int(time.time())
    return dict(echo, **tokens(owner, provider), email=owner.get("email"),
                displayName=owner.get("displayName"), isNewUser=is_new)


def op_update(body):
    user = user_from_id_token(body.get("idToken"))
    for provider in body.get("deleteProvider") or []:
        user.get("links", {}).pop(provider, None)
        if provider == "password":
            user.pop("password", None)
    if body.get("displayName"):
        user["displayName"] = body["displayName"]
    infos = [{"providerId": p, "federatedId": sub} for p, sub in sorted(user.get("links", {}).items())]
    if user.get("password") is not None:
        infos.append({"providerId": "password", "email": user.get("email")})
    return {"kind": "identitytoolkit#SetAccountInfoResponse", "localId": user["localId"],
            "email": user.get("email"), "displayName": user.get("displayName"),
            "providerUserInfo": infos}


def op_revokeToken(body):
    """v2 accounts:revokeToken: Apple only; the idToken must be valid; a code is single use."""
    user = user_from_id_token(body.get("idToken"))
    if body.get("providerId") != "apple.com":
        raise Fail("INVALID_PROVIDER_ID : only apple.com is supported")
    if body.get("tokenType") not in ("CODE", "3", 3):
        raise Fail("INVALID_ARGUMENT : tokenType")
    token = body.get("token")
    if not token or any(r["token"] == token for r in REVOKED):
        raise Fail("INVALID_CREDENTIAL : The supplied auth credential is malformed or has expired.")
    REVOKED.append({"providerId": "apple.com", "token": token, "localId": user["localId"]})
    return {}


def op_signInWithPassword(body):
    user = find_email(body.get("email"))
    if user is None:
        raise Fail("EMAIL_NOT_FOUND")
    if user.get("password") != body.get("password"):
        raise Fail("INVALID_PASSWORD")
    if user.get("disabled"):
        raise Fail("USER_DISABLED")
    return dict(tokens(user, "password"), email=user["email"], registered=True,
                kind="identitytoolkit#VerifyPasswordResponse")


def op_sendOobCode(body):
    if body.get("requestType") != "PASSWORD_RESET":
        raise Fail("MISSING_REQ_TYPE")
    if find_email(body.get("email")) is None:
        raise Fail("EMAIL_NOT_FOUND")
    return {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": body["email"]}


def op_delete(body):
    user = user_from_id_token(body.get("idToken"))
    del USERS[user["localId"]]
    return {"kind": "identitytoolkit#DeleteAccountResponse"}


def op_lookup(body):
    user = user_from_id_token(body.get("idToken"))
    return {"kind": "identitytoolkit#GetAccountInfoResponse",
            "users": [{"localId": user["localId"], "email": user.get("email")}]}


def op_token(body):
    grant = body.get("grant_type") or body.get("grantType")
    token = body.get("refresh_token") or body.get("refreshToken")
    if grant != "refresh_token":
        raise Fail("INVALID_GRANT_TYPE")
    if not token:
        raise Fail("MISSING_REFRESH_TOKEN")
    try:
        payload = json.loads(base64.b64decode(token))
        local_id = payload["localId"]
    except Exception:
        raise Fail("INVALID_REFRESH_TOKEN")
    user = USERS.get(local_id)
    if user is None:
        raise Fail("USER_NOT_FOUND")
    if user.get("disabled"):
        raise Fail("USER_DISABLED")
    t = tokens(user, payload.get("provider", "anonymous"))
    REFRESHES.append(local_id)
    return {"id_token": t["idToken"], "access_token": t["idToken"], "refresh_token": t["refreshToken"],
            "expires_in": "3600", "token_type": "Bearer", "user_id": user["localId"],
            "project_id": "12345"}


OPS = {"signUp": op_signUp, "signInWithIdp": op_signInWithIdp,
       "signInWithPassword": op_signInWithPassword, "sendOobCode": op_sendOobCode,
       "delete": op_delete, "lookup": op_lookup, "update": op_update,
       "revokeToken": op_revokeToken}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, content_type="application/json", truncate=False):
        data = body if isinstance(body, bytes) else (
            body.encode() if isinstance(body, str) else json.dumps(body).encode())
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2] if truncate else data)
        if truncate:
            self.close_connection = True

    def error(self, status, message, with_status=None):
        err = {"code": status, "message": message,
               "errors": [{"message": message, "domain": "global", "reason": "invalid"}]}
        if with_status:
            err["status"] = with_status
        self.send(status, {"error": err})

    def do_GET(self):
        if self.path == "/":
            return self.send(200, {"authEmulator": {"ready": True, "standIn": True}})
        if self.path == "/_standin/users":
            with LOCK:
                return self.send(200, {"users": list(USERS.values()), "revoked": REVOKED,
                                       "googleRevoked": GOOGLE_REVOKED, "refreshes": REFRESHES})
        self.error(404, "Not Found", "NOT_FOUND")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode()
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path.startswith("/_standin/"):
            return self.admin(url.path, json.loads(raw or "{}"))
        if url.path == "/revoke":
            # Google's OAuth revocation endpoint: POST with ?token= (a form body works too).
            token = (query.get("token") or urllib.parse.parse_qs(raw).get("token") or [None])[0]
            if not token:
                return self.send(400, {"error": "invalid_request"})
            with LOCK:
                GOOGLE_REVOKED.append(token)
            return self.send(200, {})
        if url.path.endswith("/v1/token") and "securetoken" in url.path or url.path == "/v1/token":
            op = "token"
        elif "/accounts:" in url.path:
            op = url.path.rsplit("/accounts:", 1)[1]
        else:
            return self.error(404, "Not Found", "NOT_FOUND")
        with LOCK:
            fault = FAULTS.get(op, []).pop(0) if FAULTS.get(op) else None
        if fault:
            time.sleep(fault.get("delay", 0))
            if "status" in fault:
                return self.send(fault["status"], fault.get("body", ""),
                                 fault.get("contentType", "application/json"),
                                 fault.get("truncate", False))
        if not (query.get("key") or [""])[0] and not self.headers.get("x-goog-api-key"):
            return self.error(403, "The request is missing a valid API key.", "PERMISSION_DENIED")
        content_type = self.headers.get("Content-Type", "")
        try:
            if "x-www-form-urlencoded" in content_type:
                body = {k: v[0] for k, v in urllib.parse.parse_qs(raw).items()}
            else:
                body = json.loads(raw or "{}")
        except ValueError:
            return self.error(400, "Invalid JSON payload received.", "INVALID_ARGUMENT")
        handler = op_token if op == "token" else OPS.get(op)
        if handler is None:
            return self.error(501, "NOT_IMPLEMENTED", "NOT_IMPLEMENTED")
        try:
            with LOCK:
                result = handler(body)
        except Fail as f:
            return self.error(f.status, f.message)
        body_out = json.dumps(result).encode()
        if fault and fault.get("truncate"):
            return self.send(200, body_out, truncate=True)
        self.send(200, body_out)

    def admin(self, path, body):
        with LOCK:
            if path == "/_standin/faults":
                FAULTS.setdefault(body["op"], []).append(body)
            elif path == "/_standin/disable":
                USERS[body["localId"]]["disabled"] = True
            elif path == "/_standin/reset":
                USERS.clear()
                FAULTS.clear()
                SPENT.clear()
                PENDING.clear()
                REVOKED.clear()
                GOOGLE_REVOKED.clear()
                REFRESHES.clear()
            else:
                return self.error(404, "Not Found", "NOT_FOUND")
        self.send(200, {})


def main():
    global PROJECT
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--project", default=PROJECT)
    parser.add_argument("--exit-with-stdin", action="store_true",
                        help="exit when standard input closes (the parent has gone)")
    args = parser.parse_args()
    PROJECT = args.project
    # A parent process may have blocked these; the stand-in must stop when asked to.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    if args.exit_with_stdin:
        def watch():
            while sys.stdin.buffer.read(4096):
                pass
            os._exit(0)
        threading.Thread(target=watch, daemon=True).start()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print("READY", server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
