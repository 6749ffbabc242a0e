#!/usr/bin/env python3
"""A strict stand-in for Firebase Auth: Identity Toolkit v1/v2 and Secure Token, on loopback.

Test support for AuthFlow's HTTP interpreter. It is an oracle, so it is strict: it refuses, with
Firebase's own error code, every request that the wire facts in Docs/HTTP.md say production
refuses (missing or unknown fields, wrong types, an ID token with a nonce claim but no matching
raw nonce, a pending token used twice, a forged refresh token, a login too old for a sensitive
change, an expired or used one-time code, ...). Where production and the Auth emulator differ,
it follows production (email-enumeration protection: INVALID_LOGIN_CREDENTIALS, a password
reset for an unknown address answered 200). Docs/HTTP.md lists every rule with the test that
shows it. Standard library only; listens on 127.0.0.1 only.

    python3 firebase_standin.py [--port N] [--exit-with-stdin] [--test-phone-number +1555…=123456]

prints "READY <port>" once it accepts requests. API keys: "test-key" (project demo-authflow)
and "other-project-key" (project demo-other); any other key is refused as Google does.

Test-only endpoints (no API key):
  POST /_standin/faults  {"op": "signUp"|"token"|..., "status": 503, "body": "...",
                          "contentType": "text/html", "delay": 2.5, "truncate": true}
                         queues one faulty answer for the next request of that operation
  POST /_standin/disable {"localId": "..."}        disables a user (USER_DISABLED from then on)
  POST /_standin/admin   {"localId", "emailVerified"?, "disabled"?, "customAttributes"?,
                          "revokeSessions"?, "delete"?}   what an admin SDK would do
  POST /_standin/clock   {"advance": seconds}       moves the stand-in's clock forward
  POST /_standin/config  {"emailPrivacy"?, "recentLogin"?, "mfa"?: ["PHONE_SMS", "TOTP"],
                          "emailLink"?, "allowDuplicateEmails"?,
                          "testPhoneNumbers"?: {"+15555550100": "123456"}}
  POST /_standin/reset                             forgets every user, code, fault and setting
  POST /_standin/customToken {"uid", "claims"?, "project"?, "expiresIn"?, "alg"?}
                         mints a custom token as a backend's service account would
  GET  /_standin/users                             users, revocations, refreshes, requests
  GET  /_standin/oobCodes, /_standin/verificationCodes   the mail and SMS nobody receives
  GET  /_standin/iosPushes                         the silent pushes accounts:verifyIosClient
                                                   sent ({appToken, receipt, secret}), nobody got
  (and the emulator's own GET /emulator/v1/projects/<id>/oobCodes|verificationCodes,
   DELETE /emulator/v1/projects/<id>/accounts)
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import random
import re
import signal
import string
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
KEYS = {"test-key": "demo-authflow", "other-project-key": "demo-other"}
PROJECT_NUMBERS = {"demo-authflow": "12345", "demo-other": "67890"}
CUSTOM_TOKEN_AUDIENCE = (
    "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit")
CUSTOM_TOKEN_SECRET = b"standin-service-account-key"
CLOCK = {"offset": 0.0}
FAULTS = {}            # op -> [fault]
GOOGLE_REVOKED = []    # tokens sent to the Google OAuth revocation endpoint
REQUESTS = []          # op of every request that reached an operation, in order
RNG = random.SystemRandom()

DEFAULTS = {
    "emailPrivacy": True,            # email-enumeration protection (production's default)
    "recentLogin": 300.0,            # seconds a sign-in counts as recent for sensitive changes
    "mfa": ["PHONE_SMS", "TOTP"],    # enabled second factors
    "emailLink": True,               # email-link sign-in enabled
    "allowDuplicateEmails": False,   # one account per email
    "authorizedDomains": ["localhost", "127.0.0.1", "example.com", "authflow.example"],
    # The console's "Phone numbers for testing" (phone sign-in and SMS second factors alike):
    # number -> its fixed six-digit code; nothing is texted, and every other rule still holds
    # (an app proof with each request, the session's expiry, a wrong code refused).
    "testPhoneNumbers": {},
}
CONFIG = dict(DEFAULTS)

# Lifetimes (seconds). Where Firebase documents none, these are the stand-in's choices, listed
# in Docs/HTTP.md.
LIFETIME = {
    "idToken": 3600, "oobCode": 3600, "smsSession": 600, "mfaPending": 600,
    "totpChallenge": 300, "totpEnrollment": 900, "temporaryProof": 3600, "pendingToken": 3600,
}


def now():
    return time.time() + CLOCK["offset"]


class Fail(Exception):
    def __init__(self, message, status=400, status_name=None, reason="invalid"):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = status_name
        self.reason = reason


def bad_argument(message):
    return Fail(message, 400, "INVALID_ARGUMENT")


def need(condition, message):
    if not condition:
        raise Fail(message)


def new_id(n=28):
    return "".join(RNG.choice(string.ascii_letters + string.digits) for _ in range(n))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def rfc3339(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%06dZ" % int((t % 1) * 1e6)


def is_email(value):
    return isinstance(value, str) and re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", value) is not None


def is_phone(value):
    return isinstance(value, str) and re.fullmatch(r"\+[1-9][0-9]{6,14}", value) is not None


def absolute_uri(value):
    if not isinstance(value, str):
        return False
    u = urllib.parse.urlsplit(value)
    return bool(u.scheme) and (bool(u.netloc) or u.scheme not in ("http", "https"))


def obfuscate(phone):
    digits = 0
    out = list(phone)
    for i in range(len(out) - 1, -1, -1):
        if out[i].isdigit():
            digits += 1
            if digits > 4:
                out[i] = "*"
    return "".join(out)


# MARK: - JWTs


def sign_jwt(claims, secret, alg="HS256", kid="standin"):
    header = {"alg": alg, "typ": "JWT", "kid": kid}
    head = b64url(json.dumps(header, separators=(",", ":")).encode())
    body = b64url(json.dumps(claims, separators=(",", ":")).encode())
    if alg == "none":
        return head + "." + body + "."
    sig = hmac.new(secret, (head + "." + body).encode(), hashlib.sha256).digest()
    return head + "." + body + "." + b64url(sig)


def verify_jwt(token, secret):
    """The claims of an HS256 JWT signed with `secret`, or None."""
    if not isinstance(token, str) or token.count(".") != 2:
        return None
    head, body, sig = token.split(".")
    try:
        header = json.loads(unb64url(head))
        claims = json.loads(unb64url(body))
    except Exception:
        return None
    if not isinstance(header, dict) or header.get("alg") != "HS256" or not isinstance(claims, dict):
        return None
    expected = hmac.new(secret, (head + "." + body).encode(), hashlib.sha256).digest()
    try:
        if not hmac.compare_digest(expected, unb64url(sig)):
            return None
    except Exception:
        return None
    return claims


def unverified_claims(token):
    """An IdP token's claims: strict JSON (as the emulator allows) or an unverified JWT."""
    if not isinstance(token, str) or not token:
        return None
    try:
        if token.startswith("{"):
            claims = json.loads(token)
        else:
            parts = token.split(".")
            if len(parts) != 3:
                return None
            claims = json.loads(unb64url(parts[1]))
    except Exception:
        return None
    return claims if isinstance(claims, dict) else None


def totp(secret_b32, at, period=30, digits=6):
    """RFC 6238 with HMAC-SHA1."""
    key = base64.b32decode(secret_b32 + "=" * (-len(secret_b32) % 8))
    counter = struct.pack(">Q", int(at // period))
    mac = hmac.new(key, counter, hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    code = (struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % (10 ** digits)
    return str(code).zfill(digits)


# MARK: - Projects


class Project:
    def __init__(self, pid):
        self.id = pid
        self.number = PROJECT_NUMBERS.get(pid, "99999")
        self.secret = os.urandom(32)
        self.users = {}          # localId -> user
        self.refresh = {}        # refresh token -> record
        self.minted = {}         # ID token -> mint time (exact), for revocation
        self.oob = {}            # oobCode -> record
        self.sms = {}            # sessionInfo -> record
        self.pending_mfa = {}    # mfaPendingCredential -> record
        self.totp_sessions = {}  # sessionInfo -> record
        self.pending_tokens = {} # pendingToken -> record (single use)
        self.proofs = {}         # temporaryProof -> record
        self.auth_sessions = {}  # createAuthUri sessionId -> hosted code flow
        self.spent = set()       # (id_token, nonce) pairs already accepted
        self.ios_pushes = []     # accounts:verifyIosClient: {appToken, receipt, secret, ...}
        self.revoked = []        # accounts:revokeToken calls
        self.refreshes = []      # localId of every successful refresh

    # Users

    def by_email(self, email):
        if email is None:
            return None
        email = email.lower()
        return next((u for u in self.users.values() if u.get("email") == email), None)

    def by_phone(self, phone):
        return next((u for u in self.users.values() if u.get("phoneNumber") == phone), None)

    def by_provider(self, provider, raw_id):
        for u in self.users.values():
            for info in u["providers"]:
                if info["providerId"] == provider and info["rawId"] == raw_id:
                    return u
        return None

    def new_user(self, **fields):
        t = now()
        user = {"localId": new_id(), "providers": [], "createdAt": t, "lastLoginAt": t,
                "validSince": 0.0, "emailVerified": False, "mfaInfo": []}
        user.update(fields)
        self.users[user["localId"]] = user
        return user

    def signs_in_by_email(self, user):
        # A password, or an email link used once, make the address a way in (provider
        # `password`), as the emulator's account record says.
        return bool(user.get("email")) and (user.get("password") is not None
                                             or bool(user.get("emailLinkSignin")))

    def provider_ids(self, user):
        ids = [p["providerId"] for p in user["providers"]]
        if self.signs_in_by_email(user):
            ids.append("password")
        if user.get("phoneNumber"):
            ids.append("phone")
        return ids

    def provider_user_info(self, user):
        infos = [dict(p) for p in user["providers"]]
        if self.signs_in_by_email(user):
            infos.append({"providerId": "password", "rawId": user["email"],
                          "federatedId": user["email"], "email": user["email"]})
        if user.get("phoneNumber"):
            infos.append({"providerId": "phone", "rawId": user["phoneNumber"],
                          "phoneNumber": user["phoneNumber"]})
        return infos

    def is_anonymous(self, user):
        return not (user.get("email") or user.get("password") is not None or user["providers"]
                    or user.get("phoneNumber") or user.get("customAuth"))

    def mfa_on(self, user):
        return bool(user.get("mfaInfo")) and bool(CONFIG["mfa"])

    def revoke_sessions(self, user):
        user["validSince"] = now()

    # Tokens

    def id_token(self, user, provider, extra=None, second=None):
        t = now()
        iat = int(t)
        identities = {}
        if user.get("email"):
            identities["email"] = [user["email"]]
        if user.get("phoneNumber"):
            identities["phone"] = [user["phoneNumber"]]
        for p in user["providers"]:
            identities.setdefault(p["providerId"], []).append(p["rawId"])
        claims = {}
        if user.get("displayName"):
            claims["name"] = user["displayName"]
        if user.get("photoUrl"):
            claims["picture"] = user["photoUrl"]
        claims.update(json.loads(user.get("customAttributes") or "{}"))
        claims.update(extra or {})
        firebase = {"identities": identities, "sign_in_provider": provider}
        if second:
            firebase["sign_in_second_factor"] = second["provider"]
            firebase["second_factor_identifier"] = second["identifier"]
        claims.update({
            "iss": "https://securetoken.google.com/" + self.id, "aud": self.id,
            "auth_time": int(user.get("lastLoginAt", t)), "user_id": user["localId"],
            "sub": user["localId"], "iat": iat, "exp": iat + LIFETIME["idToken"],
            "firebase": firebase,
        })
        if user.get("email"):
            claims["email"] = user["email"]
            claims["email_verified"] = bool(user.get("emailVerified"))
        if user.get("phoneNumber"):
            claims["phone_number"] = user["phoneNumber"]
        if provider == "anonymous":
            claims["provider_id"] = "anonymous"
        token = sign_jwt(claims, self.secret)
        self.minted[token] = t
        return token

    def tokens(self, user, provider, extra=None, second=None, expires=True):
        refresh = "AMf-" + new_id(96)
        self.refresh[refresh] = {"localId": user["localId"], "provider": provider,
                                 "extra": extra or {}, "second": second, "issuedAt": now()}
        out = {"idToken": self.id_token(user, provider, extra, second), "refreshToken": refresh}
        if expires:
            out["expiresIn"] = str(LIFETIME["idToken"])
        return out

    def parse_id_token(self, token, required="MISSING_ID_TOKEN"):
        """The user of a Firebase ID token, with the checks production makes."""
        if token is None or token == "":
            raise Fail(required)
        claims = verify_jwt(token, self.secret)
        if claims is None or claims.get("aud") != self.id or \
                claims.get("iss") != "https://securetoken.google.com/" + self.id:
            raise Fail("INVALID_ID_TOKEN")
        if not isinstance(claims.get("exp"), (int, float)) or claims["exp"] <= now():
            raise Fail("INVALID_ID_TOKEN")
        user = self.users.get(claims.get("user_id"))
        if user is None:
            raise Fail("USER_NOT_FOUND")
        minted = self.minted.get(token, claims.get("iat", 0))
        if minted < user.get("validSince", 0):
            raise Fail("TOKEN_EXPIRED")
        if user.get("disabled"):
            raise Fail("USER_DISABLED")
        return user, claims

    def require_recent_login(self, user, claims):
        """Sensitive changes need a sign-in less than `recentLogin` seconds old (anonymous users
        are exempt)."""
        if self.is_anonymous(user):
            return
        if now() - claims.get("auth_time", 0) > CONFIG["recentLogin"]:
            raise Fail("CREDENTIAL_TOO_OLD_LOGIN_AGAIN")

    def signed_in(self, user, provider, response, body=None, extra=None):
        """A first factor passed: the MFA-pending answer, or tokens."""
        if user.get("disabled"):
            raise Fail("USER_DISABLED")
        if self.mfa_on(user):
            credential = "mfa-" + new_id(40)
            self.pending_mfa[credential] = {"localId": user["localId"], "provider": provider,
                                            "createdAt": now(), "extra": extra}
            response = dict(response)
            response["mfaPendingCredential"] = credential
            response["mfaInfo"] = [redact_factor(f) for f in user["mfaInfo"]]
            return response
        user["lastLoginAt"] = now()
        if body is not None and body.get("returnSecureToken") is not True:
            # Without returnSecureToken the v1 API gives no Secure Token session.
            return dict(response, localId=user["localId"])
        return dict(response, **self.tokens(user, provider, extra), localId=user["localId"])


def redact_factor(f):
    out = {"mfaEnrollmentId": f["mfaEnrollmentId"], "enrolledAt": f["enrolledAt"]}
    if f.get("displayName"):
        out["displayName"] = f["displayName"]
    if "phoneInfo" in f:
        out["phoneInfo"] = obfuscate(f["phoneInfo"])
    else:
        out["totpInfo"] = {}
    return out


def full_factor(f):
    out = {"mfaEnrollmentId": f["mfaEnrollmentId"], "enrolledAt": f["enrolledAt"]}
    if f.get("displayName"):
        out["displayName"] = f["displayName"]
    if "phoneInfo" in f:
        out["phoneInfo"] = f["phoneInfo"]
    else:
        out["totpInfo"] = {}
    return out


PROJECTS = {}


def project(pid):
    if pid not in PROJECTS:
        PROJECTS[pid] = Project(pid)
    return PROJECTS[pid]


# MARK: - Request shapes: every field an operation takes, with its JSON type

S, B, L, O, N = "string", "bool", "list", "object", "number"
FIELDS = {
    "signUp": {"email": S, "password": S, "displayName": S, "photoUrl": S, "idToken": S,
               "returnSecureToken": B, "tenantId": S, "captchaChallenge": S,
               "captchaResponse": S, "clientType": S, "recaptchaVersion": S, "localId": S,
               "emailVerified": B, "phoneNumber": S, "disabled": B, "targetProjectId": S,
               "mfaInfo": L},
    "signInWithPassword": {"email": S, "password": S, "returnSecureToken": B, "tenantId": S,
                           "captchaResponse": S, "captchaChallenge": S, "clientType": S,
                           "recaptchaVersion": S, "idToken": S, "pendingIdToken": S,
                           "delegatedProjectNumber": S},
    "signInWithIdp": {"requestUri": S, "postBody": S, "returnSecureToken": B,
                      "returnIdpCredential": B, "idToken": S, "pendingToken": S,
                      "sessionId": S, "tenantId": S, "autoCreate": B,
                      "returnRefreshToken": B, "pendingIdToken": S},
    "signInWithCustomToken": {"token": S, "returnSecureToken": B, "tenantId": S,
                              "instanceId": S, "delegatedProjectNumber": S},
    "signInWithEmailLink": {"email": S, "oobCode": S, "idToken": S, "tenantId": S},
    "signInWithPhoneNumber": {"sessionInfo": S, "code": S, "phoneNumber": S,
                              "temporaryProof": S, "idToken": S, "operation": S,
                              "tenantId": S, "verificationProof": S},
    "verifyIosClient": {"appToken": S, "isSandbox": B, "tenantId": S},
    "sendVerificationCode": {"phoneNumber": S, "iosReceipt": S, "iosSecret": S,
                             "recaptchaToken": S, "tenantId": S, "autoRetrievalInfo": O,
                             "safetyNetToken": S, "playIntegrityToken": S,
                             "captchaResponse": S, "clientType": S, "recaptchaVersion": S},
    "sendOobCode": {"requestType": S, "email": S, "continueUrl": S, "canHandleCodeInApp": B,
                    "iOSBundleId": S, "iOSAppStoreId": S, "androidPackageName": S,
                    "androidInstallApp": B, "androidMinimumVersion": S,
                    "dynamicLinkDomain": S, "linkDomain": S, "idToken": S, "newEmail": S,
                    "tenantId": S, "returnOobLink": B, "targetProjectId": S, "userIp": S,
                    "captchaResp": S, "clientType": S, "recaptchaVersion": S, "challenge": S},
    "resetPassword": {"oobCode": S, "newPassword": S, "email": S, "oldPassword": S,
                      "tenantId": S},
    "update": {"idToken": S, "oobCode": S, "email": S, "password": S, "displayName": S,
               "photoUrl": S, "deleteAttribute": L, "deleteProvider": L,
               "returnSecureToken": B, "tenantId": S, "localId": S, "customAttributes": S,
               "emailVerified": B, "disableUser": B, "validSince": S, "phoneNumber": S,
               "linkProviderUserInfo": O, "mfa": O, "captchaChallenge": S,
               "captchaResponse": S, "delegatedProjectNumber": S, "instanceId": S,
               "upgradeToFederatedLogin": B, "provider": L, "createdAt": S,
               "lastLoginAt": S, "targetProjectId": S},
    "lookup": {"idToken": S, "localId": L, "email": L, "phoneNumber": L,
               "federatedUserId": L, "tenantId": S, "targetProjectId": S,
               "initialEmail": L, "delegatedProjectNumber": S},
    "delete": {"idToken": S, "localId": S, "tenantId": S, "targetProjectId": S,
               "delegatedProjectNumber": S},
    "createAuthUri": {"identifier": S, "continueUri": S, "providerId": S, "oauthScope": S,
                      "customParameter": O, "tenantId": S, "sessionId": S, "authFlowType": S,
                      "context": S, "appId": S, "otaApp": S, "openidRealm": S,
                      "hostedDomain": S},
    "revokeToken": {"providerId": S, "tokenType": S, "token": S, "idToken": S,
                    "tenantId": S, "redirectUri": S},
    "mfaEnrollment:start": {"idToken": S, "phoneEnrollmentInfo": O,
                            "totpEnrollmentInfo": O, "tenantId": S},
    "mfaEnrollment:finalize": {"idToken": S, "displayName": S, "phoneVerificationInfo": O,
                               "totpVerificationInfo": O, "tenantId": S},
    "mfaEnrollment:withdraw": {"idToken": S, "mfaEnrollmentId": S, "tenantId": S},
    "mfaSignIn:start": {"mfaPendingCredential": S, "mfaEnrollmentId": S,
                        "phoneSignInInfo": O, "tenantId": S},
    "mfaSignIn:finalize": {"mfaPendingCredential": S, "mfaEnrollmentId": S,
                           "phoneVerificationInfo": O, "totpVerificationInfo": O,
                           "tenantId": S},
    "token": {"grantType": S, "refreshToken": S, "code": S},
}
TYPE_NAMES = {S: "TYPE_STRING", B: "TYPE_BOOL", L: "TYPE_LIST", O: "TYPE_MESSAGE",
              N: "TYPE_NUMBER"}


def camel(key):
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def check_shape(op, body):
    """Unknown names and wrong JSON types are refused as Google's front end refuses them."""
    fields = FIELDS[op]
    out = {}
    for key, value in body.items():
        name = camel(key)
        if name not in fields:
            raise bad_argument('Invalid JSON payload received. Unknown name "%s": Cannot find '
                               'field.' % key)
        kind = fields[name]
        ok = value is None or {
            S: lambda v: isinstance(v, (str, int, float)) and not isinstance(v, bool),
            B: lambda v: isinstance(v, bool),
            L: lambda v: isinstance(v, list),
            O: lambda v: isinstance(v, dict),
            N: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        }[kind](value)
        if not ok:
            raise bad_argument("Invalid value at '%s' (%s), %s" % (
                key, TYPE_NAMES[kind], json.dumps(value)[:40]))
        if kind == S and isinstance(value, (int, float)):
            value = str(value)   # proto JSON reads numbers into string fields
        if value is not None:
            out[name] = value
    return out


# MARK: - accounts:signUp


def op_signUp(p, body):
    need("localId" not in body, "UNEXPECTED_PARAMETER : User ID")
    for admin in ("emailVerified", "phoneNumber", "disabled", "targetProjectId", "mfaInfo"):
        need(admin not in body, "INSUFFICIENT_PERMISSION")
    user = p.parse_id_token(body["idToken"])[0] if body.get("idToken") else None
    password_account = bool(body.get("idToken") or body.get("email") or body.get("password"))
    if password_account:
        need(body.get("email"), "MISSING_EMAIL")
        need(body.get("password"), "MISSING_PASSWORD")
    if "email" in body:
        # An empty email is never an anonymous sign-up.
        need(is_email(body["email"]), "INVALID_EMAIL")
        need(p.by_email(body["email"]) is None, "EMAIL_EXISTS")
    if password_account:
        need(len(body["password"]) >= 6,
             "WEAK_PASSWORD : Password should be at least 6 characters")
        email = body["email"].lower()
        if user is None:
            user = p.new_user(email=email, password=body["password"],
                              displayName=body.get("displayName"))
        else:
            user.update(email=email, password=body["password"], emailVerified=False)
        user["passwordUpdatedAt"] = now()
        user["lastLoginAt"] = now()
        provider = "password"
    else:
        user = p.new_user()
        provider = "anonymous"
    response = {"kind": "identitytoolkit#SignupNewUserResponse", "localId": user["localId"]}
    if user.get("email"):
        response["email"] = user["email"]
    if user.get("displayName"):
        response["displayName"] = user["displayName"]
    if body.get("returnSecureToken") is True:
        response.update(p.tokens(user, provider))
    return response


# MARK: - accounts:signInWithPassword


def op_signInWithPassword(p, body):
    need("email" in body, "MISSING_EMAIL")
    need(is_email(body["email"]), "INVALID_EMAIL")
    need(body.get("password"), "MISSING_PASSWORD")
    user = p.by_email(body["email"])
    if CONFIG["emailPrivacy"]:
        need(user is not None, "INVALID_LOGIN_CREDENTIALS")
        need(not user.get("disabled"), "USER_DISABLED")
        need(user.get("password") is not None and user["password"] == body["password"],
             "INVALID_LOGIN_CREDENTIALS")
    else:
        need(user is not None, "EMAIL_NOT_FOUND")
        need(not user.get("disabled"), "USER_DISABLED")
        need(user.get("password") is not None and user["password"] == body["password"],
             "INVALID_PASSWORD")
    response = {"kind": "identitytoolkit#VerifyPasswordResponse", "registered": True,
                "email": user["email"]}
    if user.get("displayName"):
        response["displayName"] = user["displayName"]
    return p.signed_in(user, "password", response, body)


# MARK: - accounts:signInWithIdp


def check_nonce(p, id_token, nonce, claims):
    """Firebase's rule for every provider's ID token: a nonce claim needs the raw nonce whose
    SHA-256 (lowercase hex) it is, and an (ID token, nonce) pair is accepted once."""
    claim = claims.get("nonce")
    if claim is None:
        return
    if nonce is None:
        raise Fail("MISSING_OR_INVALID_NONCE : Nonce is missing in the request.")
    if hashlib.sha256(nonce.encode()).hexdigest() != claim:
        raise Fail('MISSING_OR_INVALID_NONCE : The nonce in ID Token "%s" does not match the '
                   'SHA256 hash of the raw nonce "%s" in the request.' % (claim, nonce))
    if (id_token, nonce) in p.spent:
        raise Fail("MISSING_OR_INVALID_NONCE : Duplicate credential received. Please try again "
                   "with a new credential.")


def display_name_from_user_param(fields):
    try:
        name = json.loads((fields.get("user") or ["{}"])[0]).get("name") or {}
    except (ValueError, AttributeError):
        raise Fail("INVALID_IDP_RESPONSE : Unable to parse user")
    if not isinstance(name, dict):
        return None
    parts = [name.get("firstName"), name.get("lastName")]
    return " ".join(x for x in parts if isinstance(x, str) and x) or None


def verified(value):
    return value is True or value == "true"


def op_signInWithIdp(p, body):
    need("returnRefreshToken" not in body and "pendingIdToken" not in body,
         "INVALID_ARGUMENT : returnRefreshToken and pendingIdToken are not supported")
    need(body.get("requestUri"), "MISSING_REQUEST_URI")
    need(absolute_uri(body["requestUri"]), "INVALID_REQUEST_URI")
    link_user = p.parse_id_token(body["idToken"])[0] if body.get("idToken") else None
    # The credential's parameters: the requestUri's query and fragment, then postBody's.
    uri = urllib.parse.urlsplit(body["requestUri"])
    fields = {}
    for part in (uri.query, uri.fragment, body.get("postBody") or ""):
        fields.update(urllib.parse.parse_qs(part, keep_blank_values=True))
    raw_nonce = (fields.get("nonce") or [None])[0]
    id_token = (fields.get("id_token") or [None])[0]
    access = (fields.get("access_token") or [None])[0]
    if body.get("sessionId") is not None and not fields.get("providerId"):
        # Firebase's hosted code flow (microsoft.com): the redirect carries the provider's code,
        # which Firebase exchanges itself. Here the code is the account's claims as JSON.
        flow = p.auth_sessions.pop(body["sessionId"], None)
        need(flow is not None, "INVALID_IDP_RESPONSE : ((unknown sessionId))")
        need(body["requestUri"].startswith(flow["continueUri"]),
             "INVALID_REQUEST_URI : ((the redirect is not the continueUri))")
        provider = flow["providerId"]
        claims = unverified_claims((fields.get("code") or [None])[0])
        need(claims is not None and isinstance(claims.get("sub"), str) and claims["sub"],
             "INVALID_IDP_RESPONSE : Unable to exchange the authorization code.")
    elif body.get("pendingToken") is not None:
        # A retry after a link conflict: the pending token stands for the provider account and
        # is good once.
        record = p.pending_tokens.pop(body["pendingToken"], None)
        need(record is not None and now() - record["createdAt"] <= LIFETIME["pendingToken"],
             "INVALID_PENDING_TOKEN")
        provider, claims = record["provider"], record["claims"]
        id_token = id_token or record.get("idToken")
    else:
        provider = (fields.get("providerId") or [None])[0]
        need(provider, "INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: "
             + body["requestUri"])
        provider = provider.lower()
        need(id_token or access, "INVALID_IDP_RESPONSE : Invalid Idp Response: missing "
             "id_token or access_token.")
        claims = unverified_claims(id_token) if id_token else unverified_claims(access)
        need(claims is not None, "INVALID_IDP_RESPONSE : Unable to parse the IdP credential.")
        need(isinstance(claims.get("sub"), str) and claims["sub"],
             'INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. '
             '((Missing "sub" field.))')
        if id_token:
            check_nonce(p, id_token, raw_nonce, claims)
        if provider == "twitter.com":
            # An OAuth 1 credential: the token alone is not a credential.
            need((fields.get("oauth_token_secret") or [None])[0],
                 "INVALID_IDP_RESPONSE : oauth_token_secret is required for twitter.com")
    sub = claims["sub"]
    email = claims.get("email").lower() if isinstance(claims.get("email"), str) else None
    email_verified = verified(claims.get("email_verified"))
    name = display_name_from_user_param(fields) or claims.get("name")
    response = {"kind": "identitytoolkit#VerifyAssertionResponse", "providerId": provider,
                "federatedId": ("https://accounts.google.com/" + sub)
                if provider == "google.com" else sub,
                "rawUserInfo": json.dumps(claims), "emailVerified": email_verified}
    if id_token:
        response["oauthIdToken"] = id_token
    response["oauthAccessToken"] = access or "FirebaseAuthEmulatorFakeAccessToken_" + provider
    if email:
        response["email"] = email
    if name:
        response["displayName"] = name
    if claims.get("picture"):
        response["photoUrl"] = claims["picture"]

    def spend():
        if id_token and raw_nonce is not None:
            p.spent.add((id_token, raw_nonce))

    def conflict(code):
        # The credential was good: Firebase keeps a pending token to sign in with it once.
        spend()
        token = "pending-" + new_id(40)
        p.pending_tokens[token] = {"provider": provider, "claims": claims, "idToken": id_token,
                                   "createdAt": now()}
        if body.get("returnIdpCredential") is True:
            return dict(response, errorMessage=code, pendingToken=token)
        raise Fail(code)

    owner = p.by_provider(provider, sub)
    info = {"providerId": provider, "rawId": sub, "federatedId": sub}
    for k, v in (("email", email), ("displayName", name), ("photoUrl", claims.get("picture"))):
        if v:
            info[k] = v
    if link_user is not None:
        if owner is not None:
            return conflict("FEDERATED_USER_ID_ALREADY_LINKED")
        if email and not CONFIG["allowDuplicateEmails"]:
            other = p.by_email(email)
            if other is not None and other is not link_user:
                return conflict("EMAIL_EXISTS")
        spend()
        link_user["providers"].append(info)
        if email and not link_user.get("email"):
            link_user["email"] = email
            link_user["emailVerified"] = email_verified
        elif email and email == link_user.get("email") and email_verified:
            link_user["emailVerified"] = True
        if name and not link_user.get("displayName"):
            link_user["displayName"] = name
        link_user["lastLoginAt"] = now()
        response.update(isNewUser=False, localId=link_user["localId"])
        if link_user.get("email"):
            response["email"] = link_user["email"]
        if link_user.get("displayName"):
            response["displayName"] = link_user["displayName"]
        if body.get("returnSecureToken") is True:
            response.update(p.tokens(link_user, provider))
        return response
    is_new = False
    if owner is None and email and not CONFIG["allowDuplicateEmails"]:
        match = p.by_email(email)
        if match is not None:
            if not email_verified:
                # The IdP does not vouch for the address: Firebase will not attach it to the
                # account that has it; the app must sign in that way first, then link.
                spend()
                # What `verifiedProvider` lists is not confirmed (HTTP.md): the account's
                # providers, and `password` when it has one.
                verified_providers = (["password"] if match.get("password") else []) + [
                    x["providerId"] for x in match["providers"]]
                return dict(response, needConfirmation=True, localId=match["localId"],
                            verifiedProvider=verified_providers)
            if not match.get("emailVerified"):
                # A verified IdP email takes over an unverified account: the other ways in go.
                match.pop("password", None)
                match.pop("phoneNumber", None)
                match["providers"] = []
                p.revoke_sessions(match)
            # The IdP's profile replaces the account's (what it does not give is cleared).
            match.update(emailVerified=True, displayName=name, photoUrl=claims.get("picture"))
            match["providers"].append(info)
            owner = match
    if owner is None:
        is_new = True
        owner = p.new_user(providers=[info], email=email if not CONFIG["allowDuplicateEmails"]
                           else None, emailVerified=email_verified and not
                           CONFIG["allowDuplicateEmails"], displayName=name,
                           photoUrl=claims.get("picture"))
    spend()
    response.update(isNewUser=is_new)
    if owner.get("email"):
        response["email"] = owner["email"]
        response["emailVerified"] = bool(owner.get("emailVerified"))
    if owner.get("displayName"):
        response["displayName"] = owner["displayName"]
    return p.signed_in(owner, provider, response, body)


# MARK: - accounts:signInWithCustomToken


def op_signInWithCustomToken(p, body):
    need(body.get("token"), "MISSING_CUSTOM_TOKEN")
    claims = verify_jwt(body["token"], CUSTOM_TOKEN_SECRET)
    need(claims is not None, "INVALID_CUSTOM_TOKEN : Invalid assertion format or signature")
    need(claims.get("aud") == CUSTOM_TOKEN_AUDIENCE,
         "INVALID_CUSTOM_TOKEN : Invalid aud (audience)")
    iss = claims.get("iss") or ""
    m = re.fullmatch(r"firebase-adminsdk@([a-z0-9-]+)\.iam\.gserviceaccount\.com", iss)
    need(m is not None, "INVALID_CUSTOM_TOKEN : Invalid iss (issuer)")
    need(m.group(1) == p.id, "CREDENTIAL_MISMATCH")
    iat, exp = claims.get("iat"), claims.get("exp")
    need(isinstance(iat, (int, float)) and isinstance(exp, (int, float)) and exp - iat <= 3600
         and exp > now() and iat <= now() + 300,
         "INVALID_CUSTOM_TOKEN : The custom token format is incorrect or it has expired.")
    uid = claims.get("uid")
    need(isinstance(uid, str) and 0 < len(uid) <= 128, "INVALID_CUSTOM_TOKEN : Invalid uid")
    extra = claims.get("claims") or {}
    need(isinstance(extra, dict), "INVALID_CLAIMS")
    for reserved in ("iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr",
                     "amr", "cnf", "auth_time", "firebase", "at_hash", "c_hash"):
        need(reserved not in extra, "FORBIDDEN_CLAIM : " + reserved)
    user = p.users.get(uid)
    is_new = user is None
    if user is None:
        user = {"localId": uid, "providers": [], "createdAt": now(), "lastLoginAt": now(),
                "validSince": 0.0, "emailVerified": False, "mfaInfo": [], "customAuth": True}
        p.users[uid] = user
    need(not user.get("disabled"), "USER_DISABLED")
    user["customAuth"] = True
    user["lastLoginAt"] = now()
    response = {"kind": "identitytoolkit#VerifyCustomTokenResponse", "isNewUser": is_new}
    if body.get("returnSecureToken") is True:
        response.update(p.tokens(user, "custom", extra))
    return response


# MARK: - Email actions


def continue_url_ok(url):
    need(absolute_uri(url), "INVALID_CONTINUE_URI")
    host = urllib.parse.urlsplit(url).hostname or ""
    need(host in CONFIG["authorizedDomains"], "UNAUTHORIZED_DOMAIN : Domain not allowlisted by "
         "project")


def new_oob(p, request_type, email, user=None, new_email=None, continue_url=None):
    code = new_id(48)
    p.oob[code] = {"requestType": request_type, "email": email, "newEmail": new_email,
                   "localId": user["localId"] if user else None, "createdAt": now(),
                   "continueUrl": continue_url}
    return code


def op_sendOobCode(p, body):
    need(body.get("requestType"), "MISSING_REQ_TYPE")
    need(not body.get("returnOobLink"), "INSUFFICIENT_PERMISSION")
    if body.get("continueUrl") is not None:
        continue_url_ok(body["continueUrl"])
    kind = body["requestType"]
    out = {"kind": "identitytoolkit#GetOobConfirmationCodeResponse"}
    if kind == "PASSWORD_RESET":
        need(body.get("email"), "MISSING_EMAIL")
        need(is_email(body["email"]), "INVALID_EMAIL")
        email = body["email"].lower()
        user = p.by_email(email)
        if user is None:
            need(CONFIG["emailPrivacy"], "EMAIL_NOT_FOUND")
            return dict(out, email=email)   # Enumeration protection: no mail, same answer.
        new_oob(p, kind, email, user, continue_url=body.get("continueUrl"))
        return dict(out, email=email)
    if kind == "EMAIL_SIGNIN":
        need(CONFIG["emailLink"], "OPERATION_NOT_ALLOWED")
        need(body.get("email"), "MISSING_EMAIL")
        need(is_email(body["email"]), "INVALID_EMAIL")
        need(body.get("continueUrl"), "MISSING_CONTINUE_URI")
        need(body.get("canHandleCodeInApp") is True,
             "INVALID_ARGUMENT : canHandleCodeInApp must be true for EMAIL_SIGNIN")
        email = body["email"].lower()
        new_oob(p, kind, email, continue_url=body["continueUrl"])
        return dict(out, email=email)
    if kind == "VERIFY_EMAIL":
        user, _ = p.parse_id_token(body.get("idToken"))
        need(user.get("email"), "MISSING_EMAIL")
        new_oob(p, kind, user["email"], user, continue_url=body.get("continueUrl"))
        return dict(out, email=user["email"])
    if kind == "VERIFY_AND_CHANGE_EMAIL":
        need(body.get("newEmail"), "MISSING_NEW_EMAIL")
        need(is_email(body["newEmail"]), "INVALID_EMAIL")
        user, claims = p.parse_id_token(body.get("idToken"))
        need(user.get("email"), "MISSING_EMAIL")
        p.require_recent_login(user, claims)
        new_email = body["newEmail"].lower()
        need(p.by_email(new_email) is None, "EMAIL_EXISTS")
        new_oob(p, kind, user["email"], user, new_email, body.get("continueUrl"))
        return dict(out, email=user["email"])
    raise Fail("INVALID_REQ_TYPE : " + str(kind)[:40])


def take_oob(p, code, kinds=None, consume=True):
    need(code, "MISSING_OOB_CODE")
    record = p.oob.get(code)
    need(record is not None and (kinds is None or record["requestType"] in kinds),
         "INVALID_OOB_CODE")
    if now() - record["createdAt"] > LIFETIME["oobCode"]:
        p.oob.pop(code, None)
        raise Fail("EXPIRED_OOB_CODE")
    if consume:
        p.oob.pop(code, None)
    return record


def op_resetPassword(p, body):
    need("oldPassword" not in body, "INVALID_ARGUMENT : oldPassword is not supported")
    record = take_oob(p, body.get("oobCode"), consume=False)
    response = {"kind": "identitytoolkit#ResetPasswordResponse",
                "requestType": record["requestType"]}
    if record["requestType"] != "EMAIL_SIGNIN":
        response["email"] = record["email"]
    if record.get("newEmail"):
        response["newEmail"] = record["newEmail"]
    if body.get("newPassword") is None:
        return response   # Inspecting does not use the code.
    need(record["requestType"] == "PASSWORD_RESET", "INVALID_OOB_CODE")
    need(len(body["newPassword"]) >= 6, "WEAK_PASSWORD : Password should be at least 6 characters")
    user = p.by_email(record["email"])
    need(user is not None, "INVALID_OOB_CODE")
    need(not user.get("disabled"), "USER_DISABLED")
    p.oob.pop(body["oobCode"], None)
    user.update(password=body["newPassword"], emailVerified=True, passwordUpdatedAt=now())
    p.revoke_sessions(user)
    return response


def op_signInWithEmailLink(p, body):
    need(CONFIG["emailLink"], "OPERATION_NOT_ALLOWED")
    link_user = p.parse_id_token(body["idToken"])[0] if body.get("idToken") else None
    need(body.get("email"), "MISSING_EMAIL")
    need(body.get("oobCode"), "MISSING_OOB_CODE")
    email = body["email"].lower()
    record = take_oob(p, body["oobCode"], kinds=["EMAIL_SIGNIN"], consume=False)
    need(record["email"] == email,
         "INVALID_EMAIL : The email provided does not match the sign-in email address.")
    p.oob.pop(body["oobCode"], None)   # Spent from here on, even if what follows refuses.
    by_email = p.by_email(email)
    user = link_user or by_email
    if link_user is not None and by_email is not None:
        need(by_email is link_user, "EMAIL_EXISTS")
    is_new = user is None
    if user is None:
        user = p.new_user(email=email)
    need(not user.get("disabled"), "USER_DISABLED")
    user.update(email=email, emailVerified=True, emailLinkSignin=True)
    response = {"kind": "identitytoolkit#EmailLinkSigninResponse", "email": email,
                "isNewUser": is_new}
    return p.signed_in(user, "password", response)


# MARK: - accounts:update


def op_update(p, body):
    need(body.get("idToken") or body.get("oobCode"),
         "INVALID_REQ_TYPE : Unsupported request parameters.")
    need("customAttributes" not in body, "INSUFFICIENT_PERMISSION")
    need("disableUser" not in body and "emailVerified" not in body and "validSince" not in body
         and "localId" not in body and "linkProviderUserInfo" not in body and "mfa" not in body
         and "phoneNumber" not in body, "INSUFFICIENT_PERMISSION")
    if body.get("oobCode") and not body.get("idToken"):
        return apply_oob(p, body)
    user, claims = p.parse_id_token(body["idToken"])
    provider = claims["firebase"].get("sign_in_provider")
    second = None
    if claims["firebase"].get("sign_in_second_factor"):
        second = {"provider": claims["firebase"]["sign_in_second_factor"],
                  "identifier": claims["firebase"].get("second_factor_identifier")}
    deletes = body.get("deleteAttribute") or []
    for attr in deletes:
        need(attr in ("DISPLAY_NAME", "PHOTO_URL", "EMAIL", "PASSWORD",
                      "USER_ATTRIBUTE_NAME_UNSPECIFIED"),
             "INVALID_ARGUMENT : deleteAttribute %s" % str(attr)[:30])
    unlink = body.get("deleteProvider") or []
    revoke = False
    new_email = None
    if "email" in body:
        need(is_email(body["email"]), "INVALID_EMAIL")
        new_email = body["email"].lower()
        if new_email != user.get("email"):
            p.require_recent_login(user, claims)
            need(not user.get("mfaInfo"), "EMAIL_CHANGE_NEEDS_VERIFICATION")
            need(not CONFIG["emailPrivacy"], "OPERATION_NOT_ALLOWED : Please verify the new "
                 "email before changing email.")
            need(p.by_email(new_email) is None, "EMAIL_EXISTS")
    if "password" in body:
        p.require_recent_login(user, claims)
        need(len(body["password"]) >= 6, "WEAK_PASSWORD : Password should be at least 6 characters")
    if unlink:
        p.require_recent_login(user, claims)
    # Every check passed: apply.
    if new_email is not None and new_email != user.get("email"):
        if user.get("email") and not user.get("initialEmail"):
            user["initialEmail"] = user["email"]
        user.update(email=new_email, emailVerified=False)
        revoke = True
    if "password" in body:
        user["password"] = body["password"]
        user["passwordUpdatedAt"] = now()
        provider = "password"
        revoke = True
    if "displayName" in body:
        user["displayName"] = body["displayName"] or None
    if "photoUrl" in body:
        user["photoUrl"] = body["photoUrl"] or None
    for attr in deletes:
        if attr == "DISPLAY_NAME":
            user["displayName"] = None
        elif attr == "PHOTO_URL":
            user["photoUrl"] = None
        elif attr == "PASSWORD":
            user.pop("password", None)
        elif attr == "EMAIL":
            user.pop("email", None)
            user["emailVerified"] = False
    for gone in unlink:
        user["providers"] = [x for x in user["providers"] if x["providerId"] != gone]
        if gone == "password":
            user.pop("password", None)
            user.pop("email", None)
            user["emailVerified"] = False
        if gone == "phone":
            user.pop("phoneNumber", None)
    response = account_info(p, user, "identitytoolkit#SetAccountInfoResponse")
    if revoke:
        p.revoke_sessions(user)
        if body.get("returnSecureToken") is True:
            user["lastLoginAt"] = now()
            response.update(p.tokens(user, provider, second=second))
    return response


def apply_oob(p, body):
    record = take_oob(p, body["oobCode"], kinds=["VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL",
                                                 "RECOVER_EMAIL"], consume=False)
    user = p.users.get(record["localId"]) if record.get("localId") else p.by_email(record["email"])
    need(user is not None, "USER_NOT_FOUND")
    need(not user.get("disabled"), "USER_DISABLED")
    if record["requestType"] == "VERIFY_AND_CHANGE_EMAIL":
        need(p.by_email(record["newEmail"]) is None, "EMAIL_EXISTS")
    p.oob.pop(body["oobCode"], None)
    response = {}
    if record["requestType"] == "VERIFY_EMAIL":
        need(user.get("email") == record["email"], "INVALID_OOB_CODE")
        user["emailVerified"] = True
    else:
        if user.get("email") and not user.get("initialEmail"):
            user["initialEmail"] = user["email"]
        user.update(email=record["newEmail"], emailVerified=True)
        p.revoke_sessions(user)   # A changed address ends the other sessions.
        response["newEmail"] = record["newEmail"]
    return dict(account_info(p, user, "identitytoolkit#SetAccountInfoResponse"), **response)


def account_info(p, user, kind):
    out = {"kind": kind, "localId": user["localId"],
           "emailVerified": bool(user.get("emailVerified")),
           "providerUserInfo": p.provider_user_info(user)}
    for k in ("email", "displayName", "photoUrl"):
        if user.get(k):
            out[k] = user[k]
    if user.get("password") is not None:
        out["passwordHash"] = "UkVEQUNURUQ="   # Production redacts it.
    return out


# MARK: - accounts:lookup, delete, createAuthUri, revokeToken


def op_lookup(p, body):
    for admin in ("localId", "email", "phoneNumber", "federatedUserId", "initialEmail",
                  "targetProjectId"):
        need(admin not in body, "INSUFFICIENT_PERMISSION")
    user, _ = p.parse_id_token(body.get("idToken"))
    info = account_info(p, user, None)
    info.pop("kind")
    info.update(validSince=str(int(user.get("validSince", 0))),
                createdAt=str(int(user["createdAt"] * 1000)),
                lastLoginAt=str(int(user["lastLoginAt"] * 1000)),
                lastRefreshAt=rfc3339(user.get("lastRefreshAt", user["lastLoginAt"])),
                disabled=bool(user.get("disabled")))
    if user.get("phoneNumber"):
        info["phoneNumber"] = user["phoneNumber"]
    if user.get("customAttributes"):
        info["customAttributes"] = user["customAttributes"]
    if user.get("mfaInfo"):
        info["mfaInfo"] = [full_factor(f) for f in user["mfaInfo"]]
    if user.get("emailLinkSignin"):
        info["emailLinkSignin"] = True
    if user.get("initialEmail"):
        info["initialEmail"] = user["initialEmail"]
    if user.get("passwordUpdatedAt"):
        info["passwordUpdatedAt"] = int(user["passwordUpdatedAt"] * 1000)
    if user.get("customAuth"):
        info["customAuth"] = True
    return {"kind": "identitytoolkit#GetAccountInfoResponse", "users": [info]}


def op_delete(p, body):
    need("localId" not in body, "INSUFFICIENT_PERMISSION")
    user, claims = p.parse_id_token(body.get("idToken"))
    p.require_recent_login(user, claims)
    del p.users[user["localId"]]
    return {"kind": "identitytoolkit#DeleteAccountResponse"}


def op_createAuthUri(p, body):
    need(body.get("continueUri"), "MISSING_CONTINUE_URI")
    need(absolute_uri(body["continueUri"]), "INVALID_CONTINUE_URI")
    if body.get("providerId"):
        # The start of Firebase's hosted code flow for a provider whose code it exchanges.
        session = new_id(27)
        p.auth_sessions[session] = {"providerId": body["providerId"].lower(),
                                    "continueUri": body["continueUri"]}
        return {"kind": "identitytoolkit#CreateAuthUriResponse", "sessionId": session,
                "providerId": body["providerId"].lower(),
                "authUri": "http://127.0.0.1/authorize?state=" + session}
    need(body.get("identifier"), "MISSING_IDENTIFIER")
    need(is_email(body["identifier"]), "INVALID_IDENTIFIER")
    session = new_id(27)
    if CONFIG["emailPrivacy"]:
        return {"kind": "identitytoolkit#CreateAuthUriResponse", "sessionId": session}
    user = p.by_email(body["identifier"])
    methods = []
    if user is not None:
        if user.get("password") is not None:
            methods.append("password")
        if user.get("emailLinkSignin"):
            methods.append("emailLink")
        methods += [x["providerId"] for x in user["providers"]]
    return {"kind": "identitytoolkit#CreateAuthUriResponse", "registered": user is not None,
            "sessionId": session, "signinMethods": methods, "allProviders": methods}


def op_revokeToken(p, body):
    """v2 accounts:revokeToken: Apple only; the idToken must be valid; a code is single use."""
    user, _ = p.parse_id_token(body.get("idToken"))
    need(body.get("providerId") == "apple.com", "INVALID_PROVIDER_ID : only apple.com is supported")
    need(body.get("tokenType") in ("CODE", "3", "REFRESH_TOKEN", "ACCESS_TOKEN", "1", "2"),
         "INVALID_ARGUMENT : tokenType")
    token = body.get("token")
    need(token and not any(r["token"] == token for r in p.revoked),
         "INVALID_CREDENTIAL : The supplied auth credential is malformed or has expired.")
    p.revoked.append({"providerId": "apple.com", "token": token, "localId": user["localId"]})
    return {}


# MARK: - Phone


def app_proof(p, info, what):
    """Production wants one app-verification proof with every SMS. The stand-in checks what it
    can: an iOS receipt and secret must be a pair its own verifyIosClient sent (by push), and a
    reCAPTCHA Enterprise token comes with its client type and version; a reCAPTCHA token it
    cannot check, but it must be there."""
    ios = info.get("iosReceipt") or info.get("iosSecret")
    has = (info.get("recaptchaToken") or info.get("captchaResponse")
           or info.get("playIntegrityToken") or info.get("safetyNetToken")
           or (info.get("iosReceipt") and info.get("iosSecret")))
    need(has, "MISSING_APP_CREDENTIAL : " + what + " needs an app verification proof "
         "(recaptchaToken, iosReceipt + iosSecret, ...)")
    if ios:
        need(info.get("iosReceipt") and info.get("iosSecret"),
             "MISSING_APP_CREDENTIAL : iosReceipt and iosSecret go together")
        need(any(push["receipt"] == info["iosReceipt"] and push["secret"] == info["iosSecret"]
                 for push in p.ios_pushes),
             "INVALID_APP_CREDENTIAL : The phone verification request contains an invalid "
             "application verifier.")
    if info.get("captchaResponse"):
        need(info.get("clientType"), "MISSING_CLIENT_TYPE")
        need(info.get("recaptchaVersion") == "RECAPTCHA_ENTERPRISE", "INVALID_RECAPTCHA_VERSION")


def op_verifyIosClient(p, body):
    """The first half of iOS app verification: a receipt now, its secret by silent push (here:
    recorded for GET /_standin/iosPushes)."""
    token = body.get("appToken")
    need(token, "MISSING_IOS_APP_TOKEN")
    need(re.fullmatch(r"[0-9a-fA-F]{16,400}", token),
         "INVALID_ARGUMENT : appToken is the APNs device token in hex")
    receipt = "rcpt-" + new_id(24)
    p.ios_pushes.append({"appToken": token, "receipt": receipt, "secret": "scrt-" + new_id(24),
                         "isSandbox": bool(body.get("isSandbox"))})
    return {"receipt": receipt, "suggestedTimeout": "5"}


def new_sms(p, phone, purpose, **extra):
    session = "sms-" + new_id(40)
    code = CONFIG["testPhoneNumbers"].get(phone) or "".join(
        RNG.choice(string.digits) for _ in range(6))
    p.sms[session] = dict(extra, phone=phone, code=code, purpose=purpose, createdAt=now())
    return session


def take_sms(p, session, code, purpose):
    need(session, "MISSING_SESSION_INFO")
    need(code, "MISSING_CODE")
    record = p.sms.get(session)
    need(record is not None and record["purpose"] == purpose, "INVALID_SESSION_INFO")
    if now() - record["createdAt"] > LIFETIME["smsSession"]:
        p.sms.pop(session, None)
        raise Fail("SESSION_EXPIRED")
    need(record["code"] == code, "INVALID_CODE")   # A wrong code leaves the session usable.
    p.sms.pop(session, None)
    return record


def op_sendVerificationCode(p, body):
    need(is_phone(body.get("phoneNumber")), "INVALID_PHONE_NUMBER : Invalid format.")
    owner = p.by_phone(body["phoneNumber"])
    need(not (owner and owner.get("mfaInfo")), "UNSUPPORTED_FIRST_FACTOR : A phone number cannot "
         "be set as a first factor on an SMS based MFA user.")
    app_proof(p, body, "sendVerificationCode")
    return {"sessionInfo": new_sms(p, body["phoneNumber"], "phone")}


def op_signInWithPhoneNumber(p, body):
    # The code is checked (and a right one spent) before the linking ID token is read, as the
    # emulator does: a link refused for its token needs a new code.
    if body.get("temporaryProof"):
        need(body.get("phoneNumber"), "MISSING_PHONE_NUMBER")
        record = p.proofs.get(body["temporaryProof"])
        need(record is not None and record["phone"] == body["phoneNumber"]
             and now() - record["createdAt"] <= LIFETIME["temporaryProof"],
             "INVALID_TEMPORARY_PROOF")
        phone = record["phone"]
    else:
        phone = take_sms(p, body.get("sessionInfo"), body.get("code"), "phone")["phone"]
    link_user = p.parse_id_token(body["idToken"])[0] if body.get("idToken") else None
    owner = p.by_phone(phone)
    operation = body.get("operation")
    if operation == "REAUTH":
        need(owner is not None, "USER_NOT_FOUND")
    if owner is not None and link_user is not None and owner is not link_user:
        need(not body.get("temporaryProof"), "PHONE_NUMBER_EXISTS")
        proof = "proof-" + new_id(40)
        p.proofs[proof] = {"phone": phone, "createdAt": now()}
        return {"phoneNumber": phone, "temporaryProof": proof,
                "temporaryProofExpiresIn": str(LIFETIME["temporaryProof"])}
    user = link_user or owner
    is_new = user is None
    if user is None:
        user = p.new_user(phoneNumber=phone)
    need(not user.get("disabled"), "USER_DISABLED")
    need(not user.get("mfaInfo"), "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a "
         "first factor on an SMS based MFA user.")
    user["phoneNumber"] = phone
    user["lastLoginAt"] = now()
    return dict(p.tokens(user, "phone"), isNewUser=is_new, phoneNumber=phone,
                localId=user["localId"])


# MARK: - Second factors (v2)


def mfa_enabled(kind):
    if kind not in CONFIG["mfa"]:
        name = "SMS" if kind == "PHONE_SMS" else "TOTP"
        raise Fail("OPERATION_NOT_ALLOWED : %s based MFA not enabled." % name)


def enrollment_user(p, body):
    user, claims = p.parse_id_token(body.get("idToken"))
    provider = claims["firebase"].get("sign_in_provider")
    need(provider not in ("anonymous", "phone", "custom", "gc.apple.com"),
         "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")
    p.require_recent_login(user, claims)
    return user, claims


def op_mfaEnrollmentStart(p, body):
    phone_info, totp_info = body.get("phoneEnrollmentInfo"), body.get("totpEnrollmentInfo")
    mfa_enabled("PHONE_SMS" if phone_info is not None or totp_info is None else "TOTP")
    user, _ = enrollment_user(p, body)
    need(user.get("emailVerified"),
         "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")
    need((phone_info is None) != (totp_info is None),
         "INVALID_ARGUMENT : Request contains an invalid argument.")
    need(len(user["mfaInfo"]) < 5, "SECOND_FACTOR_LIMIT_EXCEEDED")
    if phone_info is not None:
        phone = phone_info.get("phoneNumber")
        need(is_phone(phone), "INVALID_PHONE_NUMBER : Invalid format.")
        need(not any(f.get("phoneInfo") == phone for f in user["mfaInfo"]),
             "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this "
             "account.")
        app_proof(p, phone_info, "mfaEnrollment:start")
        return {"phoneSessionInfo": {"sessionInfo": new_sms(
            p, phone, "enroll", localId=user["localId"])}}
    need(not any("phoneInfo" not in f for f in user["mfaInfo"]), "SECOND_FACTOR_LIMIT_EXCEEDED")
    secret = base64.b32encode(os.urandom(20)).decode().rstrip("=")
    session = "totp-" + new_id(40)
    deadline = now() + LIFETIME["totpEnrollment"]
    p.totp_sessions[session] = {"secret": secret, "localId": user["localId"],
                                "deadline": deadline}
    return {"totpSessionInfo": {"sharedSecretKey": secret, "verificationCodeLength": 6,
                                "hashingAlgorithm": "SHA1", "periodSec": 30,
                                "sessionInfo": session,
                                "finalizeEnrollmentTime": rfc3339(deadline)}}


def totp_ok(secret, code):
    t = now()
    window = 5   # Firebase's default adjacentIntervals.
    return isinstance(code, str) and any(
        hmac.compare_digest(totp(secret, t + 30 * i), code) for i in range(-window, window + 1))


def op_mfaEnrollmentFinalize(p, body):
    phone_info, totp_info = body.get("phoneVerificationInfo"), body.get("totpVerificationInfo")
    mfa_enabled("TOTP" if totp_info is not None else "PHONE_SMS")
    user, claims = enrollment_user(p, body)
    need((phone_info is None) != (totp_info is None),
         "INVALID_ARGUMENT : Request contains an invalid argument.")
    enrolled_at = rfc3339(now())
    if phone_info is not None:
        record = take_sms(p, phone_info.get("sessionInfo"), phone_info.get("code"), "enroll")
        need(record.get("localId") == user["localId"], "INVALID_SESSION_INFO")
        need(not any(f.get("phoneInfo") == record["phone"] for f in user["mfaInfo"]),
             "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this "
             "account.")
        factor = {"mfaEnrollmentId": new_id(28), "phoneInfo": record["phone"],
                  "enrolledAt": enrolled_at}
        kind = "phone"
    else:
        need(body.get("displayName"), "MISSING_DISPLAY_NAME")
        session = totp_info.get("sessionInfo")
        need(session, "MISSING_SESSION_INFO")
        record = p.totp_sessions.get(session)
        need(record is not None and record["localId"] == user["localId"],
             "INVALID_SESSION_INFO")
        if now() > record["deadline"]:
            p.totp_sessions.pop(session, None)
            raise Fail("SESSION_EXPIRED")
        need(totp_info.get("verificationCode"), "MISSING_CODE")
        need(totp_ok(record["secret"], totp_info["verificationCode"]), "INVALID_CODE")
        p.totp_sessions.pop(session, None)
        factor = {"mfaEnrollmentId": new_id(28), "totpSecret": record["secret"],
                  "enrolledAt": enrolled_at}
        kind = "totp"
    if body.get("displayName"):
        factor["displayName"] = body["displayName"]
    user["mfaInfo"].append(factor)
    # Enrolling ends the account's other sessions; the answer carries this one's new tokens.
    p.revoke_sessions(user)
    provider = claims["firebase"].get("sign_in_provider")
    return p.tokens(user, provider, second={"provider": kind,
                                           "identifier": factor["mfaEnrollmentId"]},
                    expires=False)


def op_mfaEnrollmentWithdraw(p, body):
    user, claims = enrollment_user(p, body)
    need(body.get("mfaEnrollmentId"), "MISSING_MFA_ENROLLMENT_ID")
    remaining = [f for f in user["mfaInfo"] if f["mfaEnrollmentId"] != body["mfaEnrollmentId"]]
    need(len(remaining) < len(user["mfaInfo"]), "MFA_ENROLLMENT_NOT_FOUND")
    user["mfaInfo"] = remaining
    p.revoke_sessions(user)
    return p.tokens(user, claims["firebase"].get("sign_in_provider"), expires=False)


def pending(p, credential, missing):
    need(credential, missing)
    record = p.pending_mfa.get(credential)
    need(record is not None, "INVALID_MFA_PENDING_CREDENTIAL")
    if now() - record["createdAt"] > LIFETIME["mfaPending"]:
        p.pending_mfa.pop(credential, None)
        raise Fail("INVALID_MFA_PENDING_CREDENTIAL : MFA pending credential is expired.")
    user = p.users.get(record["localId"])
    need(user is not None, "USER_NOT_FOUND")
    need(not user.get("disabled"), "USER_DISABLED")
    return record, user


def op_mfaSignInStart(p, body):
    mfa_enabled("PHONE_SMS")
    record, user = pending(p, body.get("mfaPendingCredential"),
                           "MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending "
                           "credential.")
    need(body.get("mfaEnrollmentId"),
         "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
    factor = next((f for f in user["mfaInfo"]
                   if f["mfaEnrollmentId"] == body["mfaEnrollmentId"]), None)
    need(factor is not None, "MFA_ENROLLMENT_NOT_FOUND")
    need("phoneInfo" in factor, "INVALID_ARGUMENT : MFA provider not supported!")
    need(body.get("phoneSignInInfo") is not None,
         "INVALID_ARGUMENT : Request contains an invalid argument.")
    app_proof(p, body["phoneSignInInfo"], "mfaSignIn:start")
    session = new_sms(p, factor["phoneInfo"], "mfa", pending=body["mfaPendingCredential"],
                      enrollment=factor["mfaEnrollmentId"])
    return {"phoneResponseInfo": {"sessionInfo": session}}


def op_mfaSignInFinalize(p, body):
    phone_info, totp_info = body.get("phoneVerificationInfo"), body.get("totpVerificationInfo")
    mfa_enabled("TOTP" if totp_info is not None else "PHONE_SMS")
    credential = body.get("mfaPendingCredential")
    record, user = pending(p, credential, "MISSING_CREDENTIAL : Please set MFA Pending Credential.")
    need((phone_info is None) != (totp_info is None),
         "INVALID_ARGUMENT : MFA provider not supported!")
    if phone_info is not None:
        sms = p.sms.get(phone_info.get("sessionInfo") or "")
        need(sms is None or sms.get("pending") == credential, "INVALID_SESSION_INFO")
        sms = take_sms(p, phone_info.get("sessionInfo"), phone_info.get("code"), "mfa")
        factor_id, kind = sms["enrollment"], "phone"
        need(any(f["mfaEnrollmentId"] == factor_id for f in user["mfaInfo"]),
             "MFA_ENROLLMENT_NOT_FOUND")
    else:
        need(body.get("mfaEnrollmentId"),
             "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
        factor = next((f for f in user["mfaInfo"]
                       if f["mfaEnrollmentId"] == body["mfaEnrollmentId"]), None)
        need(factor is not None and "totpSecret" in factor, "MFA_ENROLLMENT_NOT_FOUND")
        if now() - record["createdAt"] > LIFETIME["totpChallenge"]:
            p.pending_mfa.pop(credential, None)
            raise Fail("TOTP_CHALLENGE_TIMEOUT : TOTP challenge timeout, provide first factor "
                       "again.")
        need(totp_info.get("verificationCode"), "MISSING_CODE")
        need(totp_ok(factor["totpSecret"], totp_info["verificationCode"]), "INVALID_CODE")
        factor_id, kind = factor["mfaEnrollmentId"], "totp"
    p.pending_mfa.pop(credential, None)   # A pending credential finishes one sign-in.
    user["lastLoginAt"] = now()
    return p.tokens(user, record["provider"], record.get("extra"),
                    {"provider": kind, "identifier": factor_id}, expires=False)


# MARK: - Secure Token


def op_token(p, body):
    need(body.get("grantType"), "MISSING_GRANT_TYPE")
    need(body["grantType"] == "refresh_token", "INVALID_GRANT_TYPE")
    need(body.get("refreshToken"), "MISSING_REFRESH_TOKEN")
    token = body["refreshToken"]
    record = p.refresh.get(token)
    if record is None:
        if any(token in other.refresh for other in PROJECTS.values() if other is not p):
            raise Fail("PROJECT_NUMBER_MISMATCH")
        raise Fail("INVALID_REFRESH_TOKEN")
    user = p.users.get(record["localId"])
    need(user is not None, "USER_NOT_FOUND")
    need(not user.get("disabled"), "USER_DISABLED")
    need(record["issuedAt"] >= user.get("validSince", 0), "TOKEN_EXPIRED")
    user["lastRefreshAt"] = now()
    t = p.tokens(user, record["provider"], record["extra"], record["second"])
    p.refreshes.append(user["localId"])
    return {"id_token": t["idToken"], "access_token": t["idToken"],
            "refresh_token": t["refreshToken"], "expires_in": t["expiresIn"],
            "token_type": "Bearer", "user_id": user["localId"], "project_id": p.number}


OPS = {
    "signUp": op_signUp, "signInWithPassword": op_signInWithPassword,
    "signInWithIdp": op_signInWithIdp, "signInWithCustomToken": op_signInWithCustomToken,
    "signInWithEmailLink": op_signInWithEmailLink,
    "signInWithPhoneNumber": op_signInWithPhoneNumber,
    "sendVerificationCode": op_sendVerificationCode, "sendOobCode": op_sendOobCode,
    "verifyIosClient": op_verifyIosClient,
    "resetPassword": op_resetPassword, "update": op_update, "lookup": op_lookup,
    "delete": op_delete, "createAuthUri": op_createAuthUri, "revokeToken": op_revokeToken,
    "mfaEnrollment:start": op_mfaEnrollmentStart,
    "mfaEnrollment:finalize": op_mfaEnrollmentFinalize,
    "mfaEnrollment:withdraw": op_mfaEnrollmentWithdraw,
    "mfaSignIn:start": op_mfaSignInStart, "mfaSignIn:finalize": op_mfaSignInFinalize,
    "token": op_token,
}
V2_OPS = {"revokeToken", "mfaEnrollment:start", "mfaEnrollment:finalize",
          "mfaEnrollment:withdraw", "mfaSignIn:start", "mfaSignIn:finalize"}


def route(path):
    """The operation a POST path names, or None."""
    if path.endswith("/v1/token") and ("securetoken" in path or path == "/v1/token"):
        return "token"
    m = re.search(r"/(v1|v2)/accounts([:/])([A-Za-z]+(?::[a-z]+)?)$", path)
    if not m:
        return None
    version, _, name = m.groups()
    if version == "v2":
        return name if name in V2_OPS else None
    return name if name in OPS and name not in V2_OPS else None


def reset_all():
    PROJECTS.clear()
    FAULTS.clear()
    GOOGLE_REVOKED.clear()
    REQUESTS.clear()
    CONFIG.clear()
    CONFIG.update(DEFAULTS)
    CONFIG["mfa"] = list(DEFAULTS["mfa"])
    CONFIG["testPhoneNumbers"] = dict(DEFAULTS["testPhoneNumbers"])
    CLOCK["offset"] = 0.0


def snapshot():
    p = project("demo-authflow")
    users = []
    for u in p.users.values():
        v = {k: x for k, x in u.items() if k not in ("password",)}
        v["providers"] = p.provider_ids(u)
        v["anonymous"] = p.is_anonymous(u)
        v["mfaInfo"] = [full_factor(f) for f in u["mfaInfo"]]
        users.append(v)
    return {"users": users, "revoked": p.revoked, "googleRevoked": GOOGLE_REVOKED,
            "refreshes": p.refreshes, "requests": REQUESTS}


def mint_custom_token(body):
    pid = body.get("project") or "demo-authflow"
    t = int(now())
    claims = {"iss": "firebase-adminsdk@%s.iam.gserviceaccount.com" % pid,
              "sub": "firebase-adminsdk@%s.iam.gserviceaccount.com" % pid,
              "aud": body.get("aud", CUSTOM_TOKEN_AUDIENCE), "iat": t,
              "exp": t + int(body.get("expiresIn", 3600)), "uid": body.get("uid")}
    if body.get("claims") is not None:
        claims["claims"] = body["claims"]
    return sign_jwt(claims, CUSTOM_TOKEN_SECRET, alg=body.get("alg", "HS256"))


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

    def error(self, status, message, status_name=None, reason="invalid"):
        err = {"code": status, "message": message,
               "errors": [{"message": message, "domain": "global", "reason": reason}]}
        if status_name:
            err["status"] = status_name
        self.send(status, {"error": err})

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(min(length, 1 << 20)).decode("utf-8", "replace")

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/":
            return self.send(200, {"authEmulator": {"ready": True, "standIn": True}})
        with LOCK:
            if url.path == "/_standin/users":
                return self.send(200, snapshot())
            if url.path == "/_standin/iosPushes":
                return self.send(200, {"iosPushes": project("demo-authflow").ios_pushes})
            m = re.fullmatch(r"/emulator/v1/projects/([^/]+)/(oobCodes|verificationCodes)", url.path)
            if url.path in ("/_standin/oobCodes", "/_standin/verificationCodes") or m:
                p = project(m.group(1) if m else "demo-authflow")
                if (m and m.group(2) == "oobCodes") or url.path.endswith("oobCodes"):
                    codes = [{"email": r["email"], "oobCode": c, "requestType": r["requestType"],
                              "newEmail": r.get("newEmail"),
                              "oobLink": "http://127.0.0.1/emulator/action?mode=%s&oobCode=%s"
                              "&apiKey=test-key" % (r["requestType"], c)}
                             for c, r in p.oob.items()]
                    return self.send(200, {"oobCodes": codes})
                codes = [{"phoneNumber": r["phone"], "code": r["code"], "sessionInfo": s}
                         for s, r in p.sms.items()]
                return self.send(200, {"verificationCodes": codes})
        self.error(404, "Not Found", "NOT_FOUND", "notFound")

    def do_DELETE(self):
        url = urllib.parse.urlsplit(self.path)
        m = re.fullmatch(r"/emulator/v1/projects/([^/]+)/accounts", url.path)
        if not m:
            return self.error(404, "Not Found", "NOT_FOUND", "notFound")
        with LOCK:
            project(m.group(1)).users.clear()
        self.send(200, {})

    def do_PUT(self):
        self.error(404, "Not Found", "NOT_FOUND", "notFound")

    def do_POST(self):
        raw = self.read_body()
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path.startswith("/_standin/"):
            try:
                admin_body = json.loads(raw or "{}")
            except ValueError:
                return self.error(400, "Invalid JSON payload received.", "INVALID_ARGUMENT")
            return self.admin(url.path, admin_body)
        if url.path == "/revoke":
            # Google's OAuth revocation endpoint: POST with ?token= (a form body works too).
            token = (query.get("token") or urllib.parse.parse_qs(raw).get("token") or [None])[0]
            if not token:
                return self.send(400, {"error": "invalid_request"})
            with LOCK:
                GOOGLE_REVOKED.append(token)
            return self.send(200, {})
        op = route(url.path)
        if op is None:
            return self.error(404, "Not Found", "NOT_FOUND", "notFound")
        with LOCK:
            fault = FAULTS.get(op, []).pop(0) if FAULTS.get(op) else None
        if fault:
            time.sleep(fault.get("delay", 0))
            if "status" in fault:
                return self.send(fault["status"], fault.get("body", ""),
                                 fault.get("contentType", "application/json"),
                                 fault.get("truncate", False))
        key = (query.get("key") or [""])[0] or self.headers.get("x-goog-api-key") or ""
        if not key:
            return self.error(403, "The request is missing a valid API key.", "PERMISSION_DENIED",
                              "forbidden")
        if key not in KEYS:
            return self.error(400, "API key not valid. Please pass a valid API key.",
                              "INVALID_ARGUMENT", "keyInvalid")
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        form = content_type == "application/x-www-form-urlencoded"
        if content_type != "application/json" and not (op == "token" and form):
            return self.error(400, "Invalid JSON payload received. The request's Content-Type "
                              "must be application/json.", "INVALID_ARGUMENT")
        try:
            if form:
                body = {k: v[0] for k, v in urllib.parse.parse_qs(raw).items()}
            else:
                body = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return self.error(400, "Invalid JSON payload received. Unexpected token.",
                              "INVALID_ARGUMENT")
        if not isinstance(body, dict):
            return self.error(400, "Invalid JSON payload received. Root element must be a "
                              "message.", "INVALID_ARGUMENT")
        try:
            body = check_shape(op, body)
            with LOCK:
                REQUESTS.append(op)
                result = OPS[op](project(KEYS[key]), body)
        except Fail as f:
            return self.error(f.status, f.message, f.status_name, f.reason)
        except Exception as e:  # A bug in the stand-in must show, not hang the client.
            return self.error(500, "INTERNAL_ERROR : stand-in bug: %r" % (e,), "INTERNAL")
        body_out = json.dumps(result).encode()
        if fault and fault.get("truncate"):
            return self.send(200, body_out, truncate=True)
        self.send(200, body_out)

    def admin(self, path, body):
        with LOCK:
            p = project("demo-authflow")
            if path == "/_standin/faults":
                FAULTS.setdefault(body["op"], []).append(body)
            elif path == "/_standin/disable":
                p.users[body["localId"]]["disabled"] = True
            elif path == "/_standin/admin":
                user = p.users.get(body.get("localId"))
                if user is None:
                    return self.error(404, "USER_NOT_FOUND", "NOT_FOUND")
                for k in ("emailVerified", "disabled", "displayName"):
                    if k in body:
                        user[k] = body[k]
                if "customAttributes" in body:
                    user["customAttributes"] = json.dumps(body["customAttributes"])
                if body.get("revokeSessions"):
                    p.revoke_sessions(user)
                if body.get("delete"):
                    del p.users[user["localId"]]
            elif path == "/_standin/clock":
                CLOCK["offset"] += float(body.get("advance", 0))
            elif path == "/_standin/config":
                for k, v in body.items():
                    if k not in DEFAULTS:
                        return self.error(400, "unknown setting " + k, "INVALID_ARGUMENT")
                    if k == "testPhoneNumbers" and test_phone_problem(v):
                        return self.error(400, test_phone_problem(v), "INVALID_ARGUMENT")
                    CONFIG[k] = v
            elif path == "/_standin/reset":
                reset_all()
            elif path == "/_standin/customToken":
                return self.send(200, {"token": mint_custom_token(body)})
            else:
                return self.error(404, "Not Found", "NOT_FOUND")
        self.send(200, {})


def test_phone_problem(numbers):
    """Why a set of test phone numbers is refused (as the console refuses it), or None."""
    if not isinstance(numbers, dict):
        return "testPhoneNumbers: an object of E.164 number -> six-digit code"
    if len(numbers) > 10:
        return "testPhoneNumbers: at most 10 numbers"
    for number, code in numbers.items():
        if not is_phone(number):
            return "testPhoneNumbers: %r is not an E.164 number" % number
        if not (isinstance(code, str) and re.fullmatch(r"[0-9]{6}", code)):
            return "testPhoneNumbers: the code of %s is not six digits" % number
    return None


def test_phone_argument(text):
    number, _, code = text.partition("=")
    if test_phone_problem({number: code}):
        raise argparse.ArgumentTypeError(test_phone_problem({number: code}))
    return number, code


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true",
                        help="exit when standard input closes (the parent has gone)")
    parser.add_argument("--test-phone-number", type=test_phone_argument, action="append",
                        default=[], metavar="+15555550100=123456",
                        help="a test phone number and its fixed code (repeatable, at most 10)")
    args = parser.parse_args()
    if len(args.test_phone_number) > 10:
        parser.error("--test-phone-number: at most 10 numbers")
    DEFAULTS["testPhoneNumbers"] = dict(args.test_phone_number)
    CONFIG["testPhoneNumbers"] = dict(args.test_phone_number)
    reset_all()
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
