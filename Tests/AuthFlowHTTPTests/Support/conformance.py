#!/usr/bin/env python3
"""A conformance suite for a Firebase Auth stand-in.

Each case is a fact about what Firebase Auth does, written for AuthFlow from the Auth
emulator's own test suite (firebase-tools, src/emulator/auth/*.spec.ts: the file and test name
are given as each case's source) or from the wire references Docs/HTTP.md summarises. Where
production differs from the emulator (email-enumeration protection on: INVALID_LOGIN_CREDENTIALS;
a password reset for an unknown address answered 200), the case follows production and says so.

    python3 conformance.py --base http://127.0.0.1:9099 [--filter text] [--list]

It needs the stand-in's test endpoints (/_standin/reset, /_standin/config, /_standin/admin) to
set a project up; it prints one line per case and a summary, and exits 1 if any case fails.
"""
import argparse
import base64
import hashlib
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

CASES = []


def case(source):
    def register(fn):
        CASES.append((fn.__name__[5:].replace("_", " "), source, fn))
        return fn
    return register


class Mismatch(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Mismatch(what)


def unsigned_jwt(claims):
    def enc(o):
        return base64.urlsafe_b64encode(json.dumps(o).encode()).rstrip(b"=").decode()
    return enc({"alg": "none", "typ": "JWT"}) + "." + enc(claims) + "."


def claims_of(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


class Client:
    def __init__(self, base, key):
        self.base = base.rstrip("/")
        self.key = key

    def raw(self, path, body=None, key=True, content_type="application/json", method="POST",
            api_key=None):
        url = self.base + path
        if key:
            url += ("&" if "?" in url else "?") + "key=" + urllib.parse.quote(api_key or self.key)
        data = None
        if body is not None:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return e.code, json.loads(text or b"{}")
            except ValueError:
                return e.code, {"raw": text.decode("utf-8", "replace")}

    def call(self, op, body, version="v1", **kw):
        sep = "/" if version == "v2" and op.startswith("mfa") else ":"
        return self.raw("/identitytoolkit.googleapis.com/%s/accounts%s%s" % (version, sep, op),
                        body, **kw)

    def ok(self, op, body, version="v1"):
        status, out = self.call(op, body, version)
        check(status == 200, "%s: expected 200, got %d %s" % (op, status, json.dumps(out)[:200]))
        return out

    def error(self, op, body, code, status=400, version="v1", exact=False, **kw):
        got_status, out = self.call(op, body, version, **kw)
        message = (out.get("error") or {}).get("message", "")
        check(got_status == status, "%s: expected HTTP %d %s, got %d %s" % (
            op, status, code, got_status, json.dumps(out)[:200]))
        ok = message == code if exact else (message == code or message.startswith(code + " ")
                                            or message.startswith(code + ":"))
        check(ok, "%s: expected %s, got %r" % (op, code, message))
        return out

    def token(self, body, content_type="application/x-www-form-urlencoded"):
        text = urllib.parse.urlencode(body) if content_type.endswith("urlencoded") else \
            json.dumps(body)
        return self.raw("/securetoken.googleapis.com/v1/token", text, content_type=content_type)

    def admin(self, path, body):
        status, out = self.raw("/_standin/" + path, body, key=False)
        check(status == 200, "stand-in %s failed: %d %s" % (path, status, out))
        return out

    def get(self, path):
        req = urllib.request.Request(self.base + path)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    # Helpers that set an account up.

    def anonymous(self):
        return self.ok("signUp", {"returnSecureToken": True})

    def password_user(self, email="alice@example.com", password="notasecret", **extra):
        body = {"email": email, "password": password, "returnSecureToken": True}
        body.update(extra)
        return self.ok("signUp", body)

    def idp(self, provider, claims, id_token=None, **extra):
        post = "providerId=%s&id_token=%s" % (
            provider, urllib.parse.quote(json.dumps(claims), safe=""))
        body = {"requestUri": "http://localhost", "postBody": post, "returnSecureToken": True,
                "returnIdpCredential": True}
        if id_token:
            body["idToken"] = id_token
        body.update(extra)
        return self.call("signInWithIdp", body)

    def lookup(self, id_token):
        return self.ok("lookup", {"idToken": id_token})["users"][0]

    def oob_codes(self):
        return self.get("/_standin/oobCodes")["oobCodes"]

    def sms_codes(self):
        return self.get("/_standin/verificationCodes")["verificationCodes"]

    def verify_email(self, id_token):
        self.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": id_token})
        code = [c for c in self.oob_codes() if c["requestType"] == "VERIFY_EMAIL"][-1]["oobCode"]
        self.ok("update", {"oobCode": code})

    def phone_user(self, phone="+15555550100"):
        session = self.ok("sendVerificationCode",
                          {"phoneNumber": phone, "recaptchaToken": "ok"})["sessionInfo"]
        code = [c for c in self.sms_codes() if c["sessionInfo"] == session][0]["code"]
        return self.ok("signInWithPhoneNumber", {"sessionInfo": session, "code": code})

    def advance(self, seconds):
        self.admin("clock", {"advance": seconds})


# MARK: - Transport and request shape (wire reference §1; rest.spec.ts)


@case("rest.spec.ts: should throw 403 if API key is not provided")
def case_missing_api_key_is_403(c):
    status, out = c.call("signUp", {"returnSecureToken": True}, key=False)
    check(status == 403 and out["error"]["status"] == "PERMISSION_DENIED", "got %d %s" % (status, out))


@case("rest.spec.ts: should accept API key in HTTP Header x-goog-api-key")
def case_api_key_in_header(c):
    req = urllib.request.Request(c.base + "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                                 data=b'{"returnSecureToken":true}', method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("x-goog-api-key", c.key)
    with urllib.request.urlopen(req, timeout=10) as r:
        check(r.status == 200, "status %d" % r.status)


@case("wire reference §1.1: an unknown API key is refused with reason keyInvalid")
def case_unknown_api_key(c):
    status, out = c.call("signUp", {"returnSecureToken": True}, api_key="no-such-key")
    check(status == 400 and out["error"]["errors"][0]["reason"] == "keyInvalid", str(out))


@case("wire reference §1: Identity Toolkit takes a JSON body")
def case_form_body_refused(c):
    status, out = c.call("signUp", "returnSecureToken=true",
                         content_type="application/x-www-form-urlencoded")
    check(status == 400 and out["error"]["status"] == "INVALID_ARGUMENT", str(out))


@case("wire reference §1: malformed JSON is INVALID_ARGUMENT")
def case_malformed_json(c):
    status, out = c.call("signUp", "{not json")
    check(status == 400 and out["error"]["status"] == "INVALID_ARGUMENT", str(out))


@case("wire reference §1: an unknown field is refused, naming it")
def case_unknown_field(c):
    status, out = c.call("signUp", {"returnSecureToken": True, "emial": "a@b.c"})
    check(status == 400 and "emial" in out["error"]["message"], str(out))


@case("wire reference §1: a field of the wrong JSON type is refused")
def case_wrong_type(c):
    status, out = c.call("signUp", {"returnSecureToken": "yes"})
    check(status == 400 and out["error"]["status"] == "INVALID_ARGUMENT", str(out))


@case("rest.spec.ts: should convert numbers to strings for type:string fields")
def case_numbers_in_string_fields(c):
    c.error("signInWithPassword", {"email": 42, "password": "x"}, "INVALID_EMAIL")


@case("rest.spec.ts: unknown routes answer 404")
def case_unknown_route(c):
    status, _ = c.call("noSuchOperation", {})
    check(status == 404, "status %d" % status)


# MARK: - accounts:signUp (signUp.spec.ts)


@case("signUp.spec.ts: should throw error if no email provided")
def case_signup_no_email(c):
    c.error("signUp", {"password": "notasecret"}, "MISSING_EMAIL")


@case("signUp.spec.ts: should throw error if empty email and password is provided")
def case_signup_empty_email(c):
    c.error("signUp", {"email": "", "password": ""}, "INVALID_EMAIL")


@case("signUp.spec.ts: should issue idToken and refreshToken on anon signUp")
def case_signup_anonymous(c):
    out = c.anonymous()
    check(out["idToken"] and out["refreshToken"] and out["expiresIn"] == "3600", str(out))
    claims = claims_of(out["idToken"])
    check(claims["provider_id"] == "anonymous", str(claims))
    check(claims["firebase"]["sign_in_provider"] == "anonymous", str(claims))


@case("signUp.spec.ts: should issue refreshToken on email+password signUp")
def case_signup_password(c):
    out = c.password_user()
    check(out["email"] == "alice@example.com" and out["refreshToken"], str(out))
    check(claims_of(out["idToken"])["firebase"]["sign_in_provider"] == "password", "provider")


@case("signUp.spec.ts: should set displayName but ignore photoUrl for new password account")
def case_signup_display_name(c):
    out = c.password_user(displayName="Alice", photoUrl="http://localhost/a.png")
    info = c.lookup(out["idToken"])
    check(info.get("displayName") == "Alice" and "photoUrl" not in info, str(info))


@case("signUp.spec.ts: should disallow duplicate email signUp")
def case_signup_duplicate(c):
    c.password_user()
    c.error("signUp", {"email": "alice@example.com", "password": "notasecret"}, "EMAIL_EXISTS")


@case("signUp.spec.ts: should disallow duplicate email signUp (in another case)")
def case_signup_duplicate_other_case(c):
    c.password_user()
    c.error("signUp", {"email": "ALICE@example.com", "password": "notasecret"}, "EMAIL_EXISTS")


@case("signUp.spec.ts: should error if another account exists with same email from IDP")
def case_signup_email_from_idp(c):
    status, _ = c.idp("google.com", {"sub": "g1", "email": "alice@example.com",
                                     "email_verified": True})
    check(status == 200, "idp sign-up")
    c.error("signUp", {"email": "alice@example.com", "password": "notasecret"}, "EMAIL_EXISTS")


@case("signUp.spec.ts: should error when email format is invalid")
def case_signup_invalid_email(c):
    c.error("signUp", {"email": "not-an-email", "password": "notasecret"}, "INVALID_EMAIL")


@case("signUp.spec.ts: should normalize email address to all lowercase")
def case_signup_lowercase(c):
    out = c.password_user(email="AlIcE@Example.COM")
    check(out["email"] == "alice@example.com", out["email"])


@case("signUp.spec.ts: should error when password is too short")
def case_signup_weak(c):
    c.error("signUp", {"email": "a@example.com", "password": "short"}, "WEAK_PASSWORD")


@case("signUp.spec.ts: should error when idToken is provided but email / password is not")
def case_signup_link_missing_fields(c):
    anon = c.anonymous()
    c.error("signUp", {"idToken": anon["idToken"], "password": "notasecret"}, "MISSING_EMAIL")
    c.error("signUp", {"idToken": anon["idToken"], "email": "a@example.com"}, "MISSING_PASSWORD")


@case("signUp.spec.ts: should link email and password to anon user if idToken is provided")
def case_signup_link_anonymous(c):
    anon = c.anonymous()
    out = c.ok("signUp", {"idToken": anon["idToken"], "email": "a@example.com",
                          "password": "notasecret", "returnSecureToken": True})
    check(out["localId"] == anon["localId"], "same uid")
    check("provider_id" not in claims_of(out["idToken"]), "no longer anonymous")


@case("signUp.spec.ts: should link email and password to phone sign-in user")
def case_signup_link_phone(c):
    phone = c.phone_user()
    out = c.ok("signUp", {"idToken": phone["idToken"], "email": "a@example.com",
                          "password": "notasecret", "returnSecureToken": True})
    info = c.lookup(out["idToken"])
    check(info["localId"] == phone["localId"] and info.get("phoneNumber") == "+15555550100",
          str(info))


@case("signUp.spec.ts: should error if account to be linked is disabled")
def case_signup_link_disabled(c):
    anon = c.anonymous()
    c.admin("disable", {"localId": anon["localId"]})
    c.error("signUp", {"idToken": anon["idToken"], "email": "a@example.com",
                       "password": "notasecret"}, "USER_DISABLED")


@case("signUp.spec.ts: should error when extra localId parameter is provided")
def case_signup_local_id(c):
    c.error("signUp", {"localId": "x", "returnSecureToken": True}, "UNEXPECTED_PARAMETER")


@case("wire reference §2.1: without returnSecureToken no Secure Token session is issued")
def case_signup_without_return_secure_token(c):
    out = c.ok("signUp", {})
    check("refreshToken" not in out, str(out))


# MARK: - accounts:signInWithPassword (password.spec.ts)


@case("password.spec.ts: should issue tokens when email and password are valid")
def case_password_sign_in(c):
    user = c.password_user()
    out = c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                      "returnSecureToken": True})
    check(out["localId"] == user["localId"] and out["registered"] is True, str(out))


@case("password.spec.ts: should validate email address ignoring case")
def case_password_case(c):
    c.password_user()
    c.ok("signInWithPassword", {"email": "ALICE@EXAMPLE.com", "password": "notasecret",
                                "returnSecureToken": True})


@case("password.spec.ts: should error if email or password is missing")
def case_password_missing(c):
    c.error("signInWithPassword", {"password": "notasecret"}, "MISSING_EMAIL")
    c.error("signInWithPassword", {"email": "a@example.com"}, "MISSING_PASSWORD")


@case("password.spec.ts: should error if email is invalid")
def case_password_invalid_email(c):
    c.error("signInWithPassword", {"email": "ill-formatted", "password": "x"}, "INVALID_EMAIL")
    c.error("signInWithPassword", {"email": "", "password": "x"}, "INVALID_EMAIL")


@case("password.spec.ts: should error if email is not found with improved email privacy enabled "
      "(production's default; the emulator's default says EMAIL_NOT_FOUND)")
def case_password_unknown_email(c):
    c.error("signInWithPassword", {"email": "nobody@example.com", "password": "x"},
            "INVALID_LOGIN_CREDENTIALS")


@case("password.spec.ts: should error if password is wrong with improved email privacy enabled")
def case_password_wrong(c):
    c.password_user()
    c.error("signInWithPassword", {"email": "alice@example.com", "password": "wrong"},
            "INVALID_LOGIN_CREDENTIALS")


@case("password.spec.ts: should error if email is not found (privacy off)")
def case_password_unknown_email_privacy_off(c):
    c.admin("config", {"emailPrivacy": False})
    c.error("signInWithPassword", {"email": "nobody@example.com", "password": "x"},
            "EMAIL_NOT_FOUND")
    c.password_user()
    c.error("signInWithPassword", {"email": "alice@example.com", "password": "wrong"},
            "INVALID_PASSWORD")


@case("password.spec.ts: an account without a password is INVALID_LOGIN_CREDENTIALS, never a "
      "dropped connection (an anonymous user exists)")
def case_password_empty_body_with_anonymous_user(c):
    c.anonymous()
    c.error("signInWithPassword", {}, "MISSING_EMAIL")
    status, _ = c.idp("google.com", {"sub": "g1", "email": "bob@example.com",
                                     "email_verified": True})
    c.error("signInWithPassword", {"email": "bob@example.com", "password": "whatever"},
            "INVALID_LOGIN_CREDENTIALS")


@case("password.spec.ts: should error if user is disabled")
def case_password_disabled(c):
    user = c.password_user()
    c.admin("disable", {"localId": user["localId"]})
    c.error("signInWithPassword", {"email": "alice@example.com", "password": "notasecret"},
            "USER_DISABLED")


@case("password.spec.ts: should return pending credential if user has MFA")
def case_password_mfa_pending(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    enroll_phone(c, user)
    out = c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                      "returnSecureToken": True})
    check(out.get("mfaPendingCredential") and "idToken" not in out, str(out))
    check(out["mfaInfo"][0]["phoneInfo"].endswith("0199") and "*" in out["mfaInfo"][0]["phoneInfo"],
          "obfuscated number")


# MARK: - accounts:signInWithIdp (idp.spec.ts)


@case("idp.spec.ts: should create new account with IDP from unsigned ID token")
def case_idp_unsigned(c):
    token = unsigned_jwt({"sub": "123", "email": "alice@example.com", "email_verified": True})
    status, out = c.call("signInWithIdp", {
        "requestUri": "http://localhost", "returnSecureToken": True,
        "postBody": "providerId=google.com&id_token=" + token})
    check(status == 200 and out["isNewUser"] is True, str(out))
    check(out["federatedId"] == "https://accounts.google.com/123", out["federatedId"])
    check(out["email"] == "alice@example.com" and out["emailVerified"] is True, str(out))


@case("idp.spec.ts: should create new account with IDP from unencoded JSON claims")
def case_idp_json_claims(c):
    status, out = c.idp("oidc.acme", {"sub": "s1", "email": "x@example.com"})
    check(status == 200 and out["providerId"] == "oidc.acme" and out["federatedId"] == "s1", str(out))


@case("idp.spec.ts: should accept params (e.g. providerId, id_token) in requestUri")
def case_idp_params_in_request_uri(c):
    claims = urllib.parse.quote(json.dumps({"sub": "r1"}), safe="")
    status, out = c.call("signInWithIdp", {
        "requestUri": "http://localhost?providerId=google.com&id_token=" + claims,
        "returnSecureToken": True})
    check(status == 200 and out.get("idToken"), str(out))


@case("idp.spec.ts: should sign in existing account if (providerId, sub) is the same")
def case_idp_existing(c):
    _, first = c.idp("google.com", {"sub": "same"})
    _, second = c.idp("google.com", {"sub": "same"})
    check(first["localId"] == second["localId"] and second["isNewUser"] is False, str(second))


@case("idp.spec.ts: should error if user is disabled")
def case_idp_disabled(c):
    _, first = c.idp("google.com", {"sub": "d1"})
    c.admin("disable", {"localId": first["localId"]})
    status, out = c.idp("google.com", {"sub": "d1"})
    check(status == 400 and out["error"]["message"] == "USER_DISABLED", str(out))


@case("idp.spec.ts: should add IDP as a sign-in method for email if available")
def case_idp_adds_to_email_account(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    status, out = c.idp("google.com", {"sub": "g2", "email": "alice@example.com",
                                       "email_verified": True})
    check(status == 200 and out["localId"] == user["localId"], str(out))


@case("idp.spec.ts: should unlink password and overwite profile attributes if user had "
      "unverified email")
def case_idp_takes_over_unverified(c):
    user = c.password_user(displayName="Foo")
    status, out = c.idp("google.com", {"sub": "g3", "email": "alice@example.com",
                                       "email_verified": True, "picture": "http://localhost/p.png"})
    check(status == 200 and out["localId"] == user["localId"], str(out))
    info = c.lookup(out["idToken"])
    ids = [p["providerId"] for p in info["providerUserInfo"]]
    check(ids == ["google.com"], "providers %s" % ids)
    check(info["emailVerified"] is True and info.get("photoUrl") == "http://localhost/p.png"
          and "displayName" not in info, str(info))
    c.error("signInWithPassword", {"email": "alice@example.com", "password": "notasecret"},
            "INVALID_LOGIN_CREDENTIALS")


@case("idp.spec.ts: should not unlink password if email was already verified")
def case_idp_keeps_verified(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    status, out = c.idp("google.com", {"sub": "g4", "email": "alice@example.com",
                                       "email_verified": True})
    info = c.lookup(out["idToken"])
    ids = sorted(p["providerId"] for p in info["providerUserInfo"])
    check(ids == ["google.com", "password"], "providers %s" % ids)


@case("idp.spec.ts: should return needConfirmation if both account and IDP has unverified email")
def case_idp_need_confirmation(c):
    _, first = c.idp("facebook.com", {"sub": "f1", "email": "bar@example.com",
                                      "email_verified": False, "name": "Bar"})
    status, out = c.idp("google.com", {"sub": "g5", "email": "bar@example.com",
                                       "email_verified": False, "name": "Foo"})
    check(status == 200 and out.get("needConfirmation") is True and "idToken" not in out, str(out))
    check(out["localId"] == first["localId"] and out["verifiedProvider"] == ["facebook.com"],
          str(out))
    info = c.lookup(first["idToken"])
    check(info.get("displayName") == "Bar" and info["emailVerified"] is False, str(info))


@case("idp.spec.ts: should error when requestUri is missing or invalid")
def case_idp_request_uri(c):
    c.error("signInWithIdp", {"postBody": "providerId=google.com&id_token=x"},
            "MISSING_REQUEST_URI")
    c.error("signInWithIdp", {"requestUri": "not-a-uri",
                              "postBody": "providerId=google.com&id_token=x"},
            "INVALID_REQUEST_URI")


@case("idp.spec.ts: should error when missing providerId is missing")
def case_idp_missing_provider(c):
    c.error("signInWithIdp", {"requestUri": "http://localhost", "postBody": "id_token=x"},
            "INVALID_CREDENTIAL_OR_PROVIDER_ID")


@case("idp.spec.ts: should error when sub is missing or not a string")
def case_idp_sub(c):
    status, out = c.idp("google.com", {"email": "x@example.com"})
    check(status == 400 and out["error"]["message"].startswith("INVALID_IDP_RESPONSE"), str(out))
    status, out = c.idp("google.com", {"sub": 12345})
    check(status == 400 and out["error"]["message"].startswith("INVALID_IDP_RESPONSE"), str(out))


@case("idp.spec.ts: should link IDP to existing account by idToken")
def case_idp_link(c):
    user = c.password_user()
    status, out = c.idp("google.com", {"sub": "g6"}, id_token=user["idToken"])
    check(status == 200 and out["localId"] == user["localId"] and out["isNewUser"] is False,
          str(out))


@case("idp.spec.ts: should copy IDP email to user-level email if not present")
def case_idp_link_copies_email(c):
    anon = c.anonymous()
    status, out = c.idp("google.com", {"sub": "g7", "email": "x@example.com",
                                       "email_verified": True}, id_token=anon["idToken"])
    info = c.lookup(out["idToken"])
    check(info.get("email") == "x@example.com" and info["emailVerified"] is True, str(info))


@case("idp.spec.ts: should error if user to be linked is disabled")
def case_idp_link_disabled(c):
    user = c.password_user()
    c.admin("disable", {"localId": user["localId"]})
    status, out = c.idp("google.com", {"sub": "g8"}, id_token=user["idToken"])
    check(status == 400 and out["error"]["message"] == "USER_DISABLED", str(out))


@case("idp.spec.ts: should return pending credential for MFA-enabled user")
def case_idp_mfa_pending(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    _, linked = c.idp("google.com", {"sub": "g9"}, id_token=user["idToken"])
    enroll_phone(c, linked)
    status, out = c.idp("google.com", {"sub": "g9"})
    check(status == 200 and out.get("mfaPendingCredential") and "idToken" not in out, str(out))


@case("idp.spec.ts: should return error if IDP account is already linked to the same user")
def case_idp_already_linked_same(c):
    _, first = c.idp("google.com", {"sub": "g10"})
    status, out = c.idp("google.com", {"sub": "g10"}, id_token=first["idToken"])
    check(status == 200 and out.get("errorMessage") == "FEDERATED_USER_ID_ALREADY_LINKED", str(out))


@case("idp.spec.ts: should return error if IDP account is already linked to another user")
def case_idp_already_linked_other(c):
    c.idp("google.com", {"sub": "g11"})
    anon = c.anonymous()
    status, out = c.idp("google.com", {"sub": "g11"}, id_token=anon["idToken"],
                        returnIdpCredential=False)
    check(status == 400 and out["error"]["message"] == "FEDERATED_USER_ID_ALREADY_LINKED", str(out))
    status, out = c.idp("google.com", {"sub": "g11"}, id_token=anon["idToken"])
    check(status == 200 and out["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED"
          and "idToken" not in out and out.get("oauthIdToken"), str(out))


@case("idp.spec.ts: should return error if IDP account email already exists if NOT "
      "allowDuplicateEmail")
def case_idp_link_email_exists(c):
    c.password_user(email="taken@example.com")
    anon = c.anonymous()
    status, out = c.idp("google.com", {"sub": "g12", "email": "taken@example.com",
                                       "email_verified": True}, id_token=anon["idToken"],
                        returnIdpCredential=False)
    check(status == 400 and out["error"]["message"] == "EMAIL_EXISTS", str(out))


@case("idp.spec.ts: should allow linking IDP account with same email to same user")
def case_idp_link_same_email(c):
    user = c.password_user(email="same@example.com")
    status, out = c.idp("google.com", {"sub": "g13", "email": "same@example.com",
                                       "email_verified": True}, id_token=user["idToken"])
    check(status == 200 and out["localId"] == user["localId"], str(out))


@case("wire reference (Apple/OIDC §1.2): an ID token with a nonce claim needs the raw nonce")
def case_idp_nonce_missing(c):
    claims = {"sub": "n1", "nonce": hashlib.sha256(b"raw-1").hexdigest()}
    status, out = c.idp("oidc.acme", claims)
    check(status == 400 and out["error"]["message"].startswith("MISSING_OR_INVALID_NONCE"), str(out))


@case("wire reference (Apple/OIDC §1.2): the raw nonce's SHA-256 must be the claim, for every "
      "provider")
def case_idp_nonce_mismatch(c):
    for provider in ("apple.com", "google.com", "oidc.acme"):
        claims = json.dumps({"sub": "n2" + provider, "nonce": hashlib.sha256(b"raw").hexdigest()})
        post = "providerId=%s&id_token=%s&nonce=other" % (provider, urllib.parse.quote(claims))
        status, out = c.call("signInWithIdp", {"requestUri": "http://localhost", "postBody": post,
                                               "returnSecureToken": True})
        check(status == 400 and out["error"]["message"].startswith("MISSING_OR_INVALID_NONCE"),
              "%s: %s" % (provider, out))
        post = "providerId=%s&id_token=%s&nonce=raw" % (provider, urllib.parse.quote(claims))
        status, out = c.call("signInWithIdp", {"requestUri": "http://localhost", "postBody": post,
                                               "returnSecureToken": True})
        check(status == 200, "%s with the right nonce: %s" % (provider, out))


@case("wire reference (Apple/OIDC §2.3): an (ID token, nonce) pair is accepted once")
def case_idp_nonce_duplicate(c):
    claims = json.dumps({"sub": "n3", "nonce": hashlib.sha256(b"once").hexdigest()})
    post = "providerId=apple.com&id_token=%s&nonce=once" % urllib.parse.quote(claims)
    body = {"requestUri": "http://localhost", "postBody": post, "returnSecureToken": True}
    c.ok("signInWithIdp", body)
    c.error("signInWithIdp", body, "MISSING_OR_INVALID_NONCE")


@case("wire reference (Apple/OIDC §2): a link conflict's pendingToken signs in once, without the "
      "nonce")
def case_idp_pending_token_single_use(c):
    claims = {"sub": "p1", "nonce": hashlib.sha256(b"n-a").hexdigest()}
    post = "providerId=apple.com&id_token=%s&nonce=n-a" % urllib.parse.quote(json.dumps(claims))
    owner = c.ok("signInWithIdp", {"requestUri": "http://localhost", "postBody": post,
                                   "returnSecureToken": True})
    claims2 = {"sub": "p1", "nonce": hashlib.sha256(b"n-b").hexdigest()}
    post2 = "providerId=apple.com&id_token=%s&nonce=n-b" % urllib.parse.quote(json.dumps(claims2))
    anon = c.anonymous()
    conflict = c.ok("signInWithIdp", {"requestUri": "http://localhost", "postBody": post2,
                                      "idToken": anon["idToken"], "returnSecureToken": True,
                                      "returnIdpCredential": True})
    check(conflict["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED" and
          conflict.get("pendingToken"), str(conflict))
    retry = {"requestUri": "http://localhost", "pendingToken": conflict["pendingToken"],
             "returnSecureToken": True}
    out = c.ok("signInWithIdp", retry)
    check(out["localId"] == owner["localId"], "signs in to the owner")
    c.error("signInWithIdp", retry, "INVALID_PENDING_TOKEN")


@case("wire reference (Apple/OIDC §4.3): twitter.com's OAuth 1 token needs its secret")
def case_idp_oauth1(c):
    token = urllib.parse.quote(json.dumps({"sub": "tw-1"}), safe="")
    base = {"requestUri": "http://localhost", "returnSecureToken": True}
    c.error("signInWithIdp", dict(base, postBody="providerId=twitter.com&access_token=" + token),
            "INVALID_IDP_RESPONSE")
    c.ok("signInWithIdp", dict(base, postBody="providerId=twitter.com&access_token=" + token +
                               "&oauth_token_secret=s"))


@case("wire reference (Apple/OIDC §4.2): Firebase's hosted code flow: createAuthUri, then the "
      "redirect with its sessionId, once")
def case_idp_hosted_code(c):
    start = c.ok("createAuthUri", {"providerId": "microsoft.com",
                                   "continueUri": "https://authflow.example/__/auth/handler"})
    code = urllib.parse.quote(json.dumps({"sub": "ms-1", "email": "ana@contoso.example"}), safe="")
    body = {"requestUri": "https://authflow.example/__/auth/handler?code=" + code,
            "sessionId": start["sessionId"], "returnSecureToken": True}
    out = c.ok("signInWithIdp", body)
    check(out["providerId"] == "microsoft.com" and out.get("idToken"), str(out))
    c.error("signInWithIdp", body, "INVALID_IDP_RESPONSE")


# MARK: - accounts:update (setAccountInfo.spec.ts)


@case("setAccountInfo.spec.ts: should allow updating and deleting displayName and photoUrl")
def case_update_profile(c):
    user = c.password_user()
    out = c.ok("update", {"idToken": user["idToken"], "displayName": "Alice",
                          "photoUrl": "http://localhost/a.png"})
    check(out["displayName"] == "Alice" and out["photoUrl"] == "http://localhost/a.png", str(out))
    out = c.ok("update", {"idToken": user["idToken"], "deleteAttribute": ["DISPLAY_NAME",
                                                                          "PHOTO_URL"]})
    check("displayName" not in out and "photoUrl" not in out, str(out))


@case("AuthFlow's profile update: no recent login, an unchanged field echoed, no session ended")
def case_update_profile_as_authflow_sends_it(c):
    user = c.password_user()
    c.ok("update", {"idToken": user["idToken"], "displayName": "Alice"})
    c.advance(600)   # The login is old now; a profile change does not care.
    out = c.ok("update", {"idToken": user["idToken"], "photoUrl": "http://localhost/a.png",
                          "returnSecureToken": False})
    check(out.get("displayName") == "Alice" and out["photoUrl"] == "http://localhost/a.png"
          and "idToken" not in out, str(out))
    status, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    check(status == 200 and out.get("id_token"), str(out))


@case("setAccountInfo.spec.ts: should set password and issue new tokens")
def case_update_password(c):
    user = c.password_user()
    out = c.ok("update", {"idToken": user["idToken"], "password": "newpassword",
                          "returnSecureToken": True})
    check(out.get("idToken") and out.get("refreshToken"), str(out))
    c.ok("signInWithPassword", {"email": "alice@example.com", "password": "newpassword",
                                "returnSecureToken": True})


@case("setAccountInfo.spec.ts: should invalidate old tokens after updating validSince or password")
def case_update_password_revokes(c):
    user = c.password_user()
    c.advance(2)
    out = c.ok("update", {"idToken": user["idToken"], "password": "newpassword",
                          "returnSecureToken": True})
    c.error("lookup", {"idToken": user["idToken"]}, "TOKEN_EXPIRED")
    c.lookup(out["idToken"])


@case("wire reference (MFA/email §6): a refresh token older than a password change is "
      "TOKEN_EXPIRED (production; the emulator does not check)")
def case_update_password_revokes_refresh(c):
    user = c.password_user()
    c.advance(2)
    c.ok("update", {"idToken": user["idToken"], "password": "newpassword",
                    "returnSecureToken": True})
    status, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    check(status == 400 and out["error"]["message"] == "TOKEN_EXPIRED", str(out))


@case("setAccountInfo.spec.ts: should add password provider to anon user")
def case_update_anonymous_password(c):
    anon = c.anonymous()
    out = c.ok("update", {"idToken": anon["idToken"], "password": "notasecret",
                          "returnSecureToken": True})
    check(out.get("idToken"), str(out))


@case("setAccountInfo.spec.ts: should disallow setting email to same as an existing user "
      "(production with enumeration protection: verify the new address first)")
def case_update_email_refused(c):
    c.password_user(email="bob@example.com")
    user = c.password_user()
    c.error("update", {"idToken": user["idToken"], "email": "bob@example.com"},
            "OPERATION_NOT_ALLOWED")
    c.admin("config", {"emailPrivacy": False})
    c.error("update", {"idToken": user["idToken"], "email": "bob@example.com"}, "EMAIL_EXISTS")


@case("setAccountInfo.spec.ts: should allow changing email of an existing user (privacy off)")
def case_update_email(c):
    c.admin("config", {"emailPrivacy": False})
    user = c.password_user()
    c.advance(2)
    out = c.ok("update", {"idToken": user["idToken"], "email": "New@example.com",
                          "returnSecureToken": True})
    check(out["email"] == "new@example.com" and out["emailVerified"] is False and
          out.get("idToken"), str(out))
    c.error("lookup", {"idToken": user["idToken"]}, "TOKEN_EXPIRED")


@case("setAccountInfo.spec.ts: should update email when OOB flow of VERIFY_AND_CHANGE_EMAIL is "
      "initiated")
def case_verify_and_change_email(c):
    user = c.password_user()
    c.ok("sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                         "newEmail": "new@example.com"})
    code = [x for x in c.oob_codes() if x["requestType"] == "VERIFY_AND_CHANGE_EMAIL"][0]
    out = c.ok("update", {"oobCode": code["oobCode"]})
    check(out["email"] == "new@example.com" and out["emailVerified"] is True, str(out))
    c.error("update", {"oobCode": code["oobCode"]}, "INVALID_OOB_CODE")


@case("setAccountInfo.spec.ts: should error if user is disabled when updating by idToken")
def case_update_disabled(c):
    user = c.password_user()
    c.admin("disable", {"localId": user["localId"]})
    c.error("update", {"idToken": user["idToken"], "displayName": "x"}, "USER_DISABLED")


@case("setAccountInfo.spec.ts: should delete password provider from user (and its email)")
def case_update_unlink_password(c):
    user = c.password_user()
    c.idp("google.com", {"sub": "u1"}, id_token=user["idToken"])
    out = c.ok("update", {"idToken": user["idToken"], "deleteProvider": ["password"]})
    ids = [p["providerId"] for p in out["providerUserInfo"]]
    check(ids == ["google.com"] and "email" not in out, str(out))


@case("setAccountInfo.spec.ts: should delete google.com provider from user")
def case_update_unlink_google(c):
    _, user = c.idp("google.com", {"sub": "u2", "email": "bob@example.com",
                                   "email_verified": True})
    out = c.ok("update", {"idToken": user["idToken"], "deleteProvider": ["google.com"]})
    check("google.com" not in [p["providerId"] for p in out["providerUserInfo"]], str(out))


@case("setAccountInfo.spec.ts: should delete phone provider from user")
def case_update_unlink_phone(c):
    phone = c.phone_user()
    out = c.ok("update", {"idToken": phone["idToken"], "deleteProvider": ["phone"]})
    check(out["providerUserInfo"] == [], str(out))


@case("setAccountInfo.spec.ts: customAttributes from a client are INSUFFICIENT_PERMISSION")
def case_update_custom_attributes(c):
    user = c.password_user()
    c.error("update", {"idToken": user["idToken"], "customAttributes": "{}"},
            "INSUFFICIENT_PERMISSION")


@case("setAccountInfo.spec.ts: neither idToken nor oobCode is INVALID_REQ_TYPE")
def case_update_no_token(c):
    c.error("update", {"displayName": "x"}, "INVALID_REQ_TYPE")


@case("setAccountInfo.spec.ts: should update customAttributes and add them to ID Tokens")
def case_custom_claims_after_refresh(c):
    user = c.password_user()
    c.admin("admin", {"localId": user["localId"], "customAttributes": {"role": "admin"}})
    status, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    check(status == 200 and claims_of(out["id_token"]).get("role") == "admin", str(out))


@case("wire reference (MFA/email §4.1): a password change shorter than 6 characters is "
      "WEAK_PASSWORD and keeps the old password")
def case_update_password_weak(c):
    user = c.password_user()
    c.error("update", {"idToken": user["idToken"], "password": "short", "returnSecureToken": True},
            "WEAK_PASSWORD")
    c.lookup(user["idToken"])
    c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                "returnSecureToken": True})


@case("wire reference (MFA/email §4.3): a custom token's answer names no localId; the ID "
      "token's user_id is the uid, the same account for the same uid")
def case_custom_token_no_local_id(c):
    first = c.ok("signInWithCustomToken", {"token": custom_token(c, uid="custom-9"),
                                           "returnSecureToken": True})
    again = c.ok("signInWithCustomToken", {"token": custom_token(c, uid="custom-9"),
                                           "returnSecureToken": True})
    check("localId" not in first and claims_of(first["idToken"])["user_id"] == "custom-9" and
          again["isNewUser"] is False, str(first))


@case("wire reference (MFA/email §4.1): a password change needs a recent sign-in")
def case_update_needs_recent_login(c):
    user = c.password_user()
    c.advance(3600)
    status, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    c.error("update", {"idToken": out["id_token"], "password": "newpassword"},
            "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")


# MARK: - Secure Token (misc.spec.ts)


@case("misc.spec.ts: should exchange refresh token for new tokens")
def case_token_refresh(c):
    user = c.anonymous()
    status, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    check(status == 200 and out["user_id"] == user["localId"] and out["token_type"] == "Bearer"
          and out["expires_in"] == "3600" and out["access_token"] == out["id_token"], str(out))


@case("wire reference §3: the iOS SDK's JSON body is accepted too")
def case_token_json(c):
    user = c.anonymous()
    status, out = c.token({"grantType": "refresh_token", "refreshToken": user["refreshToken"]},
                          content_type="application/json")
    check(status == 200, str(out))


@case("misc.spec.ts: should error if grant type is missing")
def case_token_missing_grant(c):
    status, out = c.token({"refresh_token": "x"})
    check(status == 400 and "MISSING_GRANT_TYPE" in out["error"]["message"], str(out))


@case("misc.spec.ts: should error if grant type is not refresh_token")
def case_token_wrong_grant(c):
    status, out = c.token({"grant_type": "authorization_code", "refresh_token": "x"})
    check(status == 400 and "INVALID_GRANT_TYPE" in out["error"]["message"], str(out))


@case("misc.spec.ts: should error if refresh token is missing")
def case_token_missing(c):
    status, out = c.token({"grant_type": "refresh_token"})
    check(status == 400 and "MISSING_REFRESH_TOKEN" in out["error"]["message"], str(out))


@case("misc.spec.ts: should error on malformed (or forged) refresh tokens")
def case_token_forged(c):
    forged = base64.b64encode(json.dumps({"_AuthEmulatorRefreshToken": "DO NOT MODIFY",
                                          "localId": "x", "projectId": "demo-authflow"})
                              .encode()).decode()
    for token in ("not-a-token", forged):
        status, out = c.token({"grant_type": "refresh_token", "refresh_token": token})
        check(status == 400 and out["error"]["message"] == "INVALID_REFRESH_TOKEN", str(out))


@case("misc.spec.ts: should error if user is disabled")
def case_token_disabled(c):
    user = c.anonymous()
    c.admin("disable", {"localId": user["localId"]})
    status, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    check(status == 400 and out["error"]["message"] == "USER_DISABLED", str(out))


@case("misc.spec.ts: should error when refresh tokens are from a different project "
      "(production's PROJECT_NUMBER_MISMATCH)")
def case_token_other_project(c):
    user = c.anonymous()
    status, out = c.raw("/securetoken.googleapis.com/v1/token", urllib.parse.urlencode(
        {"grant_type": "refresh_token", "refresh_token": user["refreshToken"]}),
        content_type="application/x-www-form-urlencoded", api_key="other-project-key")
    check(status == 400 and out["error"]["message"] == "PROJECT_NUMBER_MISMATCH", str(out))


@case("misc.spec.ts: should error if the refresh token is for a user that does not exist "
      "(production's USER_NOT_FOUND)")
def case_token_deleted_user(c):
    user = c.anonymous()
    c.ok("delete", {"idToken": user["idToken"]})
    status, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    check(status == 400 and out["error"]["message"] == "USER_NOT_FOUND", str(out))


@case("misc.spec.ts: should populate auth_time to match lastLoginAt")
def case_token_auth_time(c):
    user = c.password_user()
    before = claims_of(user["idToken"])["auth_time"]
    c.advance(100)
    _, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    check(claims_of(out["id_token"])["auth_time"] == before, "a refresh is not a sign-in")


# MARK: - accounts:lookup, accounts:delete (misc.spec.ts, deleteAccount.spec.ts)


@case("misc.spec.ts: lookup needs an ID token")
def case_lookup_missing(c):
    c.error("lookup", {}, "MISSING_ID_TOKEN")
    c.error("lookup", {"idToken": "garbage"}, "INVALID_ID_TOKEN")


@case("misc.spec.ts: a forged (unsigned) ID token is INVALID_ID_TOKEN")
def case_lookup_forged_id_token(c):
    user = c.anonymous()
    claims = claims_of(user["idToken"])
    c.error("lookup", {"idToken": unsigned_jwt(claims)}, "INVALID_ID_TOKEN")


@case("misc.spec.ts: should return providerUserInfo for phone auth users")
def case_lookup_phone(c):
    phone = c.phone_user()
    info = c.lookup(phone["idToken"])
    check(info["providerUserInfo"][0]["providerId"] == "phone" and
          info["phoneNumber"] == "+15555550100", str(info))


@case("misc.spec.ts: lookup answers the profile fields a client reloads")
def case_lookup_fields(c):
    user = c.password_user(displayName="Alice")
    info = c.lookup(user["idToken"])
    for key in ("localId", "email", "emailVerified", "displayName", "providerUserInfo",
                "validSince", "createdAt", "lastLoginAt", "disabled"):
        check(key in info, "lookup lacks %s: %s" % (key, info))


@case("deleteAccount.spec.ts: should delete the user of the idToken")
def case_delete(c):
    user = c.password_user()
    c.ok("delete", {"idToken": user["idToken"]})
    c.error("lookup", {"idToken": user["idToken"]}, "USER_NOT_FOUND")


@case("deleteAccount.spec.ts: should error when trying to delete by localId without OAuth")
def case_delete_local_id(c):
    c.error("delete", {}, "MISSING_ID_TOKEN")


@case("deleteAccount.spec.ts: should remove federated accounts for user")
def case_delete_federated(c):
    _, first = c.idp("google.com", {"sub": "del1"})
    c.ok("delete", {"idToken": first["idToken"]})
    _, again = c.idp("google.com", {"sub": "del1"})
    check(again["isNewUser"] is True and again["localId"] != first["localId"], str(again))


@case("wire reference §2.6: deleting a permanent account needs a recent sign-in")
def case_delete_needs_recent_login(c):
    user = c.password_user()
    c.advance(3600)
    _, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    c.error("delete", {"idToken": out["id_token"]}, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")


# MARK: - Email actions (oob.spec.ts, emailLink.spec.ts)


@case("oob.spec.ts: should generate OOB code for verify email")
def case_oob_verify_email(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    check(c.lookup(user["idToken"])["emailVerified"] is True, "verified")


@case("oob.spec.ts: should error when verifying email for accounts without email")
def case_oob_verify_no_email(c):
    anon = c.anonymous()
    c.error("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": anon["idToken"]},
            "MISSING_EMAIL")


@case("oob.spec.ts: should error when continueUrl is invalid")
def case_oob_continue_url(c):
    user = c.password_user()
    c.error("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com",
                            "continueUrl": "noscheme"}, "INVALID_CONTINUE_URI")


@case("oob.spec.ts: should return purpose of oobCodes via resetPassword endpoint")
def case_oob_inspect(c):
    c.password_user()
    c.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com"})
    code = c.oob_codes()[-1]["oobCode"]
    out = c.ok("resetPassword", {"oobCode": code})
    check(out["requestType"] == "PASSWORD_RESET" and out["email"] == "alice@example.com", str(out))
    out = c.ok("resetPassword", {"oobCode": code, "newPassword": "brandnew"})
    c.error("resetPassword", {"oobCode": code, "newPassword": "again123"}, "INVALID_OOB_CODE")
    c.ok("signInWithPassword", {"email": "alice@example.com", "password": "brandnew",
                                "returnSecureToken": True})


@case("oob.spec.ts: should return email address when sending a password reset to non-existent "
      "user with improved email privacy enabled (production's default)")
def case_oob_reset_unknown(c):
    out = c.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "nobody@example.com"})
    check(out["email"] == "nobody@example.com" and not c.oob_codes(), str(out))


@case("oob.spec.ts: should error when sending a password reset to non-existent user with improved "
      "email privacy disabled")
def case_oob_reset_unknown_privacy_off(c):
    c.admin("config", {"emailPrivacy": False})
    c.error("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "nobody@example.com"},
            "EMAIL_NOT_FOUND")


@case("oob.spec.ts: should error if newEmail is already associated to another user")
def case_oob_change_email_taken(c):
    c.password_user(email="bob@example.com")
    user = c.password_user()
    c.error("sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                            "newEmail": "bob@example.com"}, "EMAIL_EXISTS")


@case("oob.spec.ts: a missing request type is MISSING_REQ_TYPE")
def case_oob_missing_type(c):
    c.error("sendOobCode", {"email": "a@example.com"}, "MISSING_REQ_TYPE")


@case("emailLink.spec.ts: should send OOB code to new emails and create account on sign-in")
def case_email_link_new(c):
    c.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "link@example.com",
                         "continueUrl": "https://authflow.example/finish",
                         "canHandleCodeInApp": True})
    code = c.oob_codes()[-1]["oobCode"]
    out = c.ok("signInWithEmailLink", {"email": "link@example.com", "oobCode": code})
    check(out["isNewUser"] is True and out.get("idToken"), str(out))
    account = c.lookup(out["idToken"])
    check(account["emailVerified"] is True, "verified by the link")
    # state.ts: an address with a password or an email-link sign-in is provider `password`.
    check([i["providerId"] for i in account["providerUserInfo"]] == ["password"], str(account))


@case("emailLink.spec.ts: should error on invalid oobCode")
def case_email_link_invalid(c):
    c.error("signInWithEmailLink", {"email": "a@example.com", "oobCode": "nope"},
            "INVALID_OOB_CODE")


@case("emailLink.spec.ts: should error if email mismatches")
def case_email_link_mismatch(c):
    c.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "link@example.com",
                         "continueUrl": "https://authflow.example/finish",
                         "canHandleCodeInApp": True})
    code = c.oob_codes()[-1]["oobCode"]
    c.error("signInWithEmailLink", {"email": "other@example.com", "oobCode": code},
            "INVALID_EMAIL")


@case("emailLink.spec.ts: should link existing account with idToken to new email")
def case_email_link_upgrade(c):
    anon = c.anonymous()
    c.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "up@example.com",
                         "continueUrl": "https://authflow.example/finish",
                         "canHandleCodeInApp": True})
    code = c.oob_codes()[-1]["oobCode"]
    out = c.ok("signInWithEmailLink", {"email": "up@example.com", "oobCode": code,
                                       "idToken": anon["idToken"]})
    check(out["localId"] == anon["localId"] and out["isNewUser"] is False, str(out))
    check([i["providerId"] for i in c.lookup(out["idToken"])["providerUserInfo"]]
          == ["password"], "the upgraded guest signs in by email now")


@case("emailLink.spec.ts: should error when trying to link an email already used in another "
      "account (and the link is spent)")
def case_email_link_taken(c):
    c.password_user(email="taken@example.com")
    anon = c.anonymous()
    c.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "taken@example.com",
                         "continueUrl": "https://authflow.example/finish",
                         "canHandleCodeInApp": True})
    code = c.oob_codes()[-1]["oobCode"]
    body = {"email": "taken@example.com", "oobCode": code, "idToken": anon["idToken"]}
    c.error("signInWithEmailLink", body, "EMAIL_EXISTS")
    c.error("signInWithEmailLink", body, "INVALID_OOB_CODE")


@case("emailLink.spec.ts: should error for email sign in if not enabled")
def case_email_link_disabled(c):
    c.admin("config", {"emailLink": False})
    c.error("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "a@example.com",
                            "continueUrl": "https://authflow.example/x",
                            "canHandleCodeInApp": True}, "OPERATION_NOT_ALLOWED")


@case("wire reference (MFA/email §3.1): an email link needs a continue URL on an authorized domain")
def case_email_link_domain(c):
    c.error("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "a@example.com",
                            "canHandleCodeInApp": True}, "MISSING_CONTINUE_URI")
    c.error("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "a@example.com",
                            "continueUrl": "https://evil.invalid/x", "canHandleCodeInApp": True},
            "UNAUTHORIZED_DOMAIN")


@case("wire reference (MFA/email §3.2): an action code expires")
def case_oob_expires(c):
    c.password_user()
    c.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com"})
    code = c.oob_codes()[-1]["oobCode"]
    c.advance(3601)
    c.error("resetPassword", {"oobCode": code, "newPassword": "brandnew"}, "EXPIRED_OOB_CODE")


@case("wire reference (MFA/email §3.2): a weak new password keeps the reset code usable; a "
      "verification code cannot reset a password; no code is MISSING_OOB_CODE")
def case_reset_refusals(c):
    user = c.password_user()
    c.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com"})
    code = c.oob_codes()[-1]["oobCode"]
    c.error("resetPassword", {"oobCode": code, "newPassword": "pw"}, "WEAK_PASSWORD")
    c.ok("resetPassword", {"oobCode": code})
    c.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]})
    verify = [x for x in c.oob_codes() if x["requestType"] == "VERIFY_EMAIL"][-1]["oobCode"]
    c.error("resetPassword", {"oobCode": verify, "newPassword": "brandnew"}, "INVALID_OOB_CODE")
    c.error("resetPassword", {"newPassword": "brandnew"}, "MISSING_OOB_CODE")
    c.ok("resetPassword", {"oobCode": code, "newPassword": "brandnew"})


@case("wire reference (MFA/email §3.2): a confirmed reset ends the account's sessions "
      "(its refresh token is TOKEN_EXPIRED)")
def case_reset_revokes(c):
    user = c.password_user()
    c.advance(2)
    c.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com"})
    code = c.oob_codes()[-1]["oobCode"]
    c.ok("resetPassword", {"oobCode": code, "newPassword": "brandnew"})
    status, out = c.token({"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    check(status == 400 and out["error"]["message"] == "TOKEN_EXPIRED", str(out))


@case("wire reference (MFA/email §3.3): an expired verification code is EXPIRED_OOB_CODE and "
      "leaves the address unverified; a reset code cannot verify an address")
def case_apply_refusals(c):
    user = c.password_user()
    c.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]})
    verify = [x for x in c.oob_codes() if x["requestType"] == "VERIFY_EMAIL"][-1]["oobCode"]
    c.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com"})
    reset = [x for x in c.oob_codes() if x["requestType"] == "PASSWORD_RESET"][-1]["oobCode"]
    c.error("update", {"oobCode": reset}, "INVALID_OOB_CODE")
    c.advance(3601)
    c.error("update", {"oobCode": verify}, "EXPIRED_OOB_CODE")
    fresh = c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                        "returnSecureToken": True})
    check(c.lookup(fresh["idToken"]).get("emailVerified") is False, "still unverified")


# MARK: - Custom tokens (customToken.spec.ts)


def custom_token(c, **body):
    return c.admin("customToken", body)["token"]


@case("customToken.spec.ts: should create new account from custom token")
def case_custom_new(c):
    out = c.ok("signInWithCustomToken", {"token": custom_token(c, uid="custom-1",
                                                               claims={"tier": "gold"}),
                                         "returnSecureToken": True})
    claims = claims_of(out["idToken"])
    check(out["isNewUser"] is True and claims["user_id"] == "custom-1" and
          claims["tier"] == "gold" and claims["firebase"]["sign_in_provider"] == "custom", str(claims))


@case("customToken.spec.ts: should error if custom token is missing")
def case_custom_missing(c):
    c.error("signInWithCustomToken", {"returnSecureToken": True}, "MISSING_CUSTOM_TOKEN")


@case("customToken.spec.ts: should error if custom token is invalid (an unsigned token, in "
      "production)")
def case_custom_unsigned(c):
    c.error("signInWithCustomToken", {"token": custom_token(c, uid="u", alg="none")},
            "INVALID_CUSTOM_TOKEN")
    c.error("signInWithCustomToken", {"token": "garbage"}, "INVALID_CUSTOM_TOKEN")


@case("customToken.spec.ts: should error if custom token addresses the wrong audience")
def case_custom_audience(c):
    c.error("signInWithCustomToken", {"token": custom_token(c, uid="u", aud="other")},
            "INVALID_CUSTOM_TOKEN")


@case("customToken.spec.ts: should error if custom token contains forbidden claims")
def case_custom_forbidden(c):
    c.error("signInWithCustomToken", {"token": custom_token(c, uid="u",
                                                            claims={"firebase": {}})},
            "FORBIDDEN_CLAIM")


@case("wire reference (MFA/email §4.3): a custom token for another project is CREDENTIAL_MISMATCH")
def case_custom_other_project(c):
    c.error("signInWithCustomToken", {"token": custom_token(c, uid="u", project="demo-other")},
            "CREDENTIAL_MISMATCH")


@case("customToken.spec.ts: should error if user is disabled")
def case_custom_disabled(c):
    out = c.ok("signInWithCustomToken", {"token": custom_token(c, uid="custom-d"),
                                         "returnSecureToken": True})
    c.admin("disable", {"localId": "custom-d"})
    c.error("signInWithCustomToken", {"token": custom_token(c, uid="custom-d")}, "USER_DISABLED")


# MARK: - Phone (phone.spec.ts)


@case("phone.spec.ts: should error when phone number is missing when calling sendVerificationCode")
def case_phone_missing(c):
    c.error("sendVerificationCode", {"recaptchaToken": "ok"}, "INVALID_PHONE_NUMBER")


@case("phone.spec.ts: should error when phone number is invalid")
def case_phone_invalid(c):
    c.error("sendVerificationCode", {"phoneNumber": "5555550100", "recaptchaToken": "ok"},
            "INVALID_PHONE_NUMBER")


@case("wire reference (MFA/email §5.1): production wants an app verification proof")
def case_phone_needs_proof(c):
    c.error("sendVerificationCode", {"phoneNumber": "+15555550100"}, "MISSING_APP_CREDENTIAL")


@case("wire reference (MFA/email §5.1, §5.2): the app's proof, by kind")
def case_phone_proof_kinds(c):
    number = {"phoneNumber": "+15555550100"}
    c.error("verifyIosClient", {}, "MISSING_IOS_APP_TOKEN")
    answer = c.ok("verifyIosClient", {"appToken": "a1b2c3d4e5f60718293a4b5c6d7e8f90",
                                      "isSandbox": True})
    check(answer["receipt"] and answer["suggestedTimeout"].isdigit(), str(answer))
    push = [p for p in c.get("/_standin/iosPushes")["iosPushes"]
            if p["receipt"] == answer["receipt"]]
    check(len(push) == 1 and push[0]["secret"], "the silent push for the receipt")
    ios = {"iosReceipt": answer["receipt"], "iosSecret": push[0]["secret"]}
    check(c.ok("sendVerificationCode", dict(number, **ios))["sessionInfo"], "iOS proof")
    c.error("sendVerificationCode", dict(number, iosReceipt=answer["receipt"], iosSecret="x"),
            "INVALID_APP_CREDENTIAL")
    c.error("sendVerificationCode", dict(number, iosReceipt=answer["receipt"]),
            "MISSING_APP_CREDENTIAL")
    c.error("sendVerificationCode", dict(number, captchaResponse="t"), "MISSING_CLIENT_TYPE")
    c.error("sendVerificationCode", dict(number, captchaResponse="t", clientType="CLIENT_TYPE_IOS",
                                         recaptchaVersion="V2"), "INVALID_RECAPTCHA_VERSION")
    check(c.ok("sendVerificationCode", dict(number, captchaResponse="t",
                                            clientType="CLIENT_TYPE_IOS",
                                            recaptchaVersion="RECAPTCHA_ENTERPRISE"))
          ["sessionInfo"], "reCAPTCHA Enterprise proof")


@case("phone.spec.ts: should create new account by verifying phone number")
def case_phone_sign_in(c):
    out = c.phone_user()
    check(out["isNewUser"] is True and out["phoneNumber"] == "+15555550100", str(out))
    check(claims_of(out["idToken"])["firebase"]["sign_in_provider"] == "phone", "provider")


@case("phone.spec.ts: should error when sessionInfo or code is missing / invalid")
def case_phone_bad_code(c):
    c.error("signInWithPhoneNumber", {"code": "123456"}, "MISSING_SESSION_INFO")
    session = c.ok("sendVerificationCode", {"phoneNumber": "+15555550100",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    c.error("signInWithPhoneNumber", {"sessionInfo": session}, "MISSING_CODE")
    c.error("signInWithPhoneNumber", {"sessionInfo": "nope", "code": "123456"},
            "INVALID_SESSION_INFO")
    code = c.sms_codes()[-1]["code"]
    wrong = "000000" if code != "000000" else "111111"
    c.error("signInWithPhoneNumber", {"sessionInfo": session, "code": wrong}, "INVALID_CODE")
    c.ok("signInWithPhoneNumber", {"sessionInfo": session, "code": code})


@case("phone.spec.ts: should link phone number to existing account by idToken")
def case_phone_link(c):
    anon = c.anonymous()
    session = c.ok("sendVerificationCode", {"phoneNumber": "+15555550100",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    code = c.sms_codes()[-1]["code"]
    out = c.ok("signInWithPhoneNumber", {"sessionInfo": session, "code": code,
                                         "idToken": anon["idToken"]})
    check(out["localId"] == anon["localId"] and out["isNewUser"] is False, str(out))


@case("phone.spec.ts: should return temporaryProof if phone number already belongs to another "
      "account")
def case_phone_temporary_proof(c):
    owner = c.phone_user()
    anon = c.anonymous()
    session = c.ok("sendVerificationCode", {"phoneNumber": "+15555550100",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    code = c.sms_codes()[-1]["code"]
    out = c.ok("signInWithPhoneNumber", {"sessionInfo": session, "code": code,
                                         "idToken": anon["idToken"]})
    check(out.get("temporaryProof") and "idToken" not in out, str(out))
    c.error("signInWithPhoneNumber", {"temporaryProof": out["temporaryProof"],
                                      "phoneNumber": "+15555550100", "idToken": anon["idToken"]},
            "PHONE_NUMBER_EXISTS")
    signed = c.ok("signInWithPhoneNumber", {"temporaryProof": out["temporaryProof"],
                                            "phoneNumber": "+15555550100"})
    check(signed["localId"] == owner["localId"], "the proof signs in to the owner")


@case("wire reference (MFA/email §5.3): an SMS code expires")
def case_phone_expired(c):
    session = c.ok("sendVerificationCode", {"phoneNumber": "+15555550100",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    code = c.sms_codes()[-1]["code"]
    c.advance(601)
    c.error("signInWithPhoneNumber", {"sessionInfo": session, "code": code}, "SESSION_EXPIRED")


@case("operations.ts verifyPhoneNumber: a right code is spent, by a sign-in or by a link conflict")
def case_phone_code_single_use(c):
    owner = c.phone_user()
    session = c.ok("sendVerificationCode", {"phoneNumber": "+15555550100",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    code = c.sms_codes()[-1]["code"]
    c.ok("signInWithPhoneNumber", {"sessionInfo": session, "code": code})
    c.error("signInWithPhoneNumber", {"sessionInfo": session, "code": code},
            "INVALID_SESSION_INFO")
    anon = c.anonymous()
    session = c.ok("sendVerificationCode", {"phoneNumber": "+15555550100",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    code = c.sms_codes()[-1]["code"]
    out = c.ok("signInWithPhoneNumber", {"sessionInfo": session, "code": code,
                                         "idToken": anon["idToken"]})
    check(out.get("temporaryProof") and out.get("phoneNumber") == "+15555550100", str(out))
    check(owner["localId"] != anon["localId"], "two accounts")
    c.error("signInWithPhoneNumber", {"sessionInfo": session, "code": code,
                                      "idToken": anon["idToken"]}, "INVALID_SESSION_INFO")


@case("operations.ts signInWithPhoneNumber: the code is checked before the linking ID token")
def case_phone_code_before_token(c):
    session = c.ok("sendVerificationCode", {"phoneNumber": "+15555550100",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    code = c.sms_codes()[-1]["code"]
    c.error("signInWithPhoneNumber", {"sessionInfo": session, "code": code, "idToken": "forged"},
            "INVALID_ID_TOKEN")
    c.error("signInWithPhoneNumber", {"sessionInfo": session, "code": code},
            "INVALID_SESSION_INFO")


@case("operations.ts sendVerificationCode: an SMS-MFA user's number is no first factor")
def case_phone_mfa_user_number(c):
    phone = c.phone_user("+15555550111")
    linked = c.ok("signUp", {"idToken": phone["idToken"], "email": "mfa-phone@example.com",
                             "password": "notasecret", "returnSecureToken": True})
    c.verify_email(linked["idToken"])
    signed = c.ok("signInWithPassword", {"email": "mfa-phone@example.com",
                                         "password": "notasecret", "returnSecureToken": True})
    enroll_phone(c, signed)
    c.error("sendVerificationCode", {"phoneNumber": "+15555550111", "recaptchaToken": "ok"},
            "UNSUPPORTED_FIRST_FACTOR")


# MARK: - Second factors (mfa.spec.ts)


@case("Identity Platform, test phone numbers: a number registered for testing answers its fixed "
      "code, for a sign-in and an SMS second factor alike; the other rules still hold")
def case_phone_test_numbers(c):
    for bad in ({"+1555": "123456"}, {"+15555550123": "12345"}, ["+15555550123"],
                {"+1555555%04d" % i: "123456" for i in range(11)}):
        status, out = c.raw("/_standin/config", {"testPhoneNumbers": bad}, key=False)
        check(status == 400 and "testPhoneNumbers" in json.dumps(out), "%s: %s" % (bad, out))
    c.admin("config", {"testPhoneNumbers": {"+15555550123": "654321", "+15555550124": "121212"}})
    c.error("sendVerificationCode", {"phoneNumber": "+15555550123"}, "MISSING_APP_CREDENTIAL")
    session = c.ok("sendVerificationCode", {"phoneNumber": "+15555550123",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    c.error("signInWithPhoneNumber", {"sessionInfo": session, "code": "000000"}, "INVALID_CODE")
    user = c.ok("signInWithPhoneNumber", {"sessionInfo": session, "code": "654321"})
    check(user["phoneNumber"] == "+15555550123", str(user))
    c.error("signInWithPhoneNumber", {"sessionInfo": session, "code": "654321"},
            "INVALID_SESSION_INFO")
    owner = c.password_user()
    c.verify_email(owner["idToken"])
    owner = c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                        "returnSecureToken": True})
    start = c.ok("mfaEnrollment:start", {"idToken": owner["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": "+15555550124", "recaptchaToken": "ok"}}, version="v2")
    c.ok("mfaEnrollment:finalize", {"idToken": owner["idToken"], "phoneVerificationInfo": {
        "sessionInfo": start["phoneSessionInfo"]["sessionInfo"], "code": "121212"}},
        version="v2")
    first = c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                        "returnSecureToken": True})
    start = c.ok("mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                     "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                     "phoneSignInInfo": {"recaptchaToken": "ok"}}, version="v2")
    session = start["phoneResponseInfo"]["sessionInfo"]
    pending = first["mfaPendingCredential"]
    c.error("mfaSignIn:finalize", {"mfaPendingCredential": pending, "phoneVerificationInfo": {
        "sessionInfo": session, "code": "654321"}}, "INVALID_CODE", version="v2")
    out = c.ok("mfaSignIn:finalize", {"mfaPendingCredential": pending, "phoneVerificationInfo": {
        "sessionInfo": session, "code": "121212"}}, version="v2")
    check(claims_of(out["idToken"])["firebase"]["sign_in_second_factor"] == "phone", str(out))
    check(not [x for x in c.sms_codes() if x["phoneNumber"] == "+15555550124"], "spent")


def enroll_phone(c, user, phone="+15555550199"):
    start = c.ok("mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": phone, "recaptchaToken": "ok"}}, version="v2")
    session = start["phoneSessionInfo"]["sessionInfo"]
    code = [x for x in c.sms_codes() if x["sessionInfo"] == session][0]["code"]
    return c.ok("mfaEnrollment:finalize", {"idToken": user["idToken"], "displayName": "Phone",
                                           "phoneVerificationInfo": {"sessionInfo": session,
                                                                     "code": code}},
                version="v2")


@case("wire reference (MFA/email §2.5, §2.6): a phone enrolment needs the app's proof; its code "
      "is the enrolment's own, kept by a wrong code and spent by the right one")
def case_mfa_enroll_phone_codes(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    user = c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                       "returnSecureToken": True})
    c.error("mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": "+15555550199"}}, "MISSING_APP_CREDENTIAL", version="v2")
    sign_in = c.ok("sendVerificationCode", {"phoneNumber": "+15555550199",
                                            "recaptchaToken": "ok"})["sessionInfo"]
    start = c.ok("mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": "+15555550199", "recaptchaToken": "ok"}}, version="v2")
    session = start["phoneSessionInfo"]["sessionInfo"]
    code = [x for x in c.sms_codes() if x["sessionInfo"] == session][0]["code"]
    other = [x for x in c.sms_codes() if x["sessionInfo"] == sign_in][0]["code"]

    def finalize(info):
        return {"idToken": user["idToken"], "displayName": "Phone",
                "phoneVerificationInfo": info}
    c.error("mfaEnrollment:finalize", finalize({"sessionInfo": session}), "MISSING_CODE",
            version="v2")
    c.error("mfaEnrollment:finalize", finalize({"sessionInfo": sign_in, "code": other}),
            "INVALID_SESSION_INFO", version="v2")
    wrong = "000000" if code != "000000" else "111111"
    c.error("mfaEnrollment:finalize", finalize({"sessionInfo": session, "code": wrong}),
            "INVALID_CODE", version="v2")
    done = c.ok("mfaEnrollment:finalize", finalize({"sessionInfo": session, "code": code}),
                version="v2")
    user = done  # Enrolling ended the account's other sessions: the answer's token is current.
    c.error("mfaEnrollment:finalize", finalize({"sessionInfo": session, "code": code}),
            "INVALID_SESSION_INFO", version="v2")


@case("mfa.spec.ts: should error if account does not have email verified")
def case_mfa_unverified(c):
    user = c.password_user()
    c.error("mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": "+15555550199", "recaptchaToken": "ok"}}, "UNVERIFIED_EMAIL", version="v2")


@case("mfa.spec.ts: should allow phone enrollment for an existing account")
def case_mfa_enroll(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    out = enroll_phone(c, user)
    claims = claims_of(out["idToken"])
    check(claims["firebase"]["sign_in_second_factor"] == "phone" and "expiresIn" not in out,
          str(claims))
    info = c.lookup(out["idToken"])
    check(info["mfaInfo"][0]["phoneInfo"] == "+15555550199", str(info))


@case("mfa.spec.ts: should error if phoneEnrollmentInfo is not specified")
def case_mfa_no_info(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    c.error("mfaEnrollment:start", {"idToken": user["idToken"]}, "INVALID_ARGUMENT", version="v2")


@case("mfa.spec.ts: should error if phoneNumber is invalid / a duplicate")
def case_mfa_bad_number(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    c.error("mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": "notaphone", "recaptchaToken": "ok"}}, "INVALID_PHONE_NUMBER", version="v2")
    out = enroll_phone(c, user)
    c.error("mfaEnrollment:start", {"idToken": out["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": "+15555550199", "recaptchaToken": "ok"}}, "SECOND_FACTOR_EXISTS",
        version="v2")


@case("mfa.spec.ts: should error if sign-in method of idToken is ineligible for MFA")
def case_mfa_anonymous(c):
    anon = c.anonymous()
    c.error("mfaEnrollment:start", {"idToken": anon["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": "+15555550199", "recaptchaToken": "ok"}}, "UNSUPPORTED_FIRST_FACTOR",
        version="v2")


@case("mfa.spec.ts: should error on mfaEnrollment:start if phone SMS is not an enabled provider")
def case_mfa_disabled(c):
    c.admin("config", {"mfa": []})
    user = c.password_user()
    c.error("mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {
        "phoneNumber": "+15555550199", "recaptchaToken": "ok"}}, "OPERATION_NOT_ALLOWED",
        version="v2")


@case("mfa.spec.ts: should allow sign-in with pending credential for MFA-enabled user")
def case_mfa_sign_in(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    factor = enroll_phone(c, user)
    first = c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                        "returnSecureToken": True})
    pending, enrollment = first["mfaPendingCredential"], first["mfaInfo"][0]["mfaEnrollmentId"]
    c.error("mfaSignIn:start", {"mfaEnrollmentId": enrollment, "phoneSignInInfo": {
        "recaptchaToken": "ok"}}, "MISSING_MFA_PENDING_CREDENTIAL", version="v2")
    start = c.ok("mfaSignIn:start", {"mfaPendingCredential": pending,
                                     "mfaEnrollmentId": enrollment,
                                     "phoneSignInInfo": {"recaptchaToken": "ok"}}, version="v2")
    session = start["phoneResponseInfo"]["sessionInfo"]
    code = [x for x in c.sms_codes() if x["sessionInfo"] == session][0]["code"]
    c.error("mfaSignIn:finalize", {"phoneVerificationInfo": {"sessionInfo": session,
                                                             "code": code}},
            "MISSING_CREDENTIAL", version="v2")
    out = c.ok("mfaSignIn:finalize", {"mfaPendingCredential": pending, "phoneVerificationInfo": {
        "sessionInfo": session, "code": code}}, version="v2")
    claims = claims_of(out["idToken"])
    check(claims["firebase"]["sign_in_provider"] == "password" and
          claims["firebase"]["sign_in_second_factor"] == "phone" and "expiresIn" not in out,
          str(claims))


@case("wire reference (MFA/email §2.9): an old pending credential is refused")
def case_mfa_pending_expires(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    enroll_phone(c, user)
    first = c.ok("signInWithPassword", {"email": "alice@example.com", "password": "notasecret",
                                        "returnSecureToken": True})
    c.advance(601)
    c.error("mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                "phoneSignInInfo": {"recaptchaToken": "ok"}},
            "INVALID_MFA_PENDING_CREDENTIAL", version="v2")


@case("mfa.spec.ts: should allow withdrawing MFA for a user")
def case_mfa_withdraw(c):
    user = c.password_user()
    c.verify_email(user["idToken"])
    enrolled = enroll_phone(c, user)
    factor = c.lookup(enrolled["idToken"])["mfaInfo"][0]["mfaEnrollmentId"]
    out = c.ok("mfaEnrollment:withdraw", {"idToken": enrolled["idToken"],
                                          "mfaEnrollmentId": factor}, version="v2")
    check("mfaInfo" not in c.lookup(out["idToken"]), "withdrawn")
    c.error("mfaEnrollment:withdraw", {"idToken": out["idToken"], "mfaEnrollmentId": factor},
            "MFA_ENROLLMENT_NOT_FOUND", version="v2")


# MARK: - createAuthUri (createAuthUri.spec.ts)


@case("createAuthUri.spec.ts: should not show registered field with improved email privacy "
      "enabled")
def case_create_auth_uri_private(c):
    c.password_user()
    out = c.ok("createAuthUri", {"identifier": "alice@example.com",
                                 "continueUri": "http://localhost"})
    check("registered" not in out and out.get("sessionId"), str(out))


@case("createAuthUri.spec.ts: should return providers for a registered user (privacy off)")
def case_create_auth_uri(c):
    c.admin("config", {"emailPrivacy": False})
    c.password_user()
    out = c.ok("createAuthUri", {"identifier": "ALICE@example.com",
                                 "continueUri": "http://localhost"})
    check(out["registered"] is True and out["signinMethods"] == ["password"], str(out))


@case("createAuthUri.spec.ts: should error if identifier or continueUri is not provided / invalid")
def case_create_auth_uri_errors(c):
    c.error("createAuthUri", {"continueUri": "http://localhost"}, "MISSING_IDENTIFIER")
    c.error("createAuthUri", {"identifier": "a@example.com"}, "MISSING_CONTINUE_URI")
    c.error("createAuthUri", {"identifier": "nope", "continueUri": "http://localhost"},
            "INVALID_IDENTIFIER")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", required=True, help="the stand-in, e.g. http://127.0.0.1:9099")
    parser.add_argument("--key", default="test-key")
    parser.add_argument("--filter", default="")
    parser.add_argument("--list", action="store_true", help="list the cases and their sources")
    args = parser.parse_args()
    c = Client(args.base, args.key)
    selected = [x for x in CASES if args.filter in x[0] or args.filter in x[1]]
    if args.list:
        for name, source, _ in selected:
            print("%s  [%s]" % (name, source))
        return 0
    failed = 0
    started = time.time()
    for name, source, fn in selected:
        c.admin("reset", {})
        try:
            fn(c)
            print("pass  %s" % name)
        except Mismatch as e:
            failed += 1
            print("FAIL  %s\n      source: %s\n      %s" % (name, source, e))
        except Exception as e:  # A case that cannot run is a failure too.
            failed += 1
            print("FAIL  %s\n      source: %s\n      %r" % (name, source, e))
    print("%d cases, %d passed, %d failed (%.1f s)" % (
        len(selected), len(selected) - failed, failed, time.time() - started))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
