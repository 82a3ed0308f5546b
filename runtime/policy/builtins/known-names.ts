/**
 * OPA 1.x builtins and their arities. A builtin listed here that no
 * registered definition implements still compiles (so it can be replaced
 * with `with`); calling it raises an `unsupported` error.
 */
const SPEC = `abs/1 and/2 array.concat/2 array.flatten/1 array.reverse/1 array.slice/3 base64.decode/1 base64.encode/1
base64.is_valid/1 base64url.decode/1 base64url.encode/1 base64url.encode_no_pad/1 bits.and/2 bits.lsh/2
bits.negate/1 bits.or/2 bits.rsh/2 bits.xor/2 ceil/1 concat/2 contains/2 count/1 crypto.hmac.equal/2
crypto.hmac.md5/2 crypto.hmac.sha1/2 crypto.hmac.sha256/2 crypto.hmac.sha512/2 crypto.md5/1
crypto.parse_private_keys/1 crypto.sha1/1 crypto.sha256/1 crypto.x509.parse_and_verify_certificates/1
crypto.x509.parse_and_verify_certificates_with_options/2 crypto.x509.parse_certificate_request/1
crypto.x509.parse_certificates/1 crypto.x509.parse_keypair/2 crypto.x509.parse_rsa_private_key/1 div/2
endswith/2 equal/2 floor/1 format_int/2 glob.match/3 glob.quote_meta/1 graph.reachable/2
graph.reachable_paths/2 graphql.is_valid/2 graphql.parse/2 graphql.parse_and_verify/2 graphql.parse_query/1
graphql.parse_schema/1 graphql.schema_is_valid/1 gt/2 gte/2 hex.decode/1 hex.encode/1 http.send/1 indexof/2
indexof_n/2 internal.member_2/2 internal.member_3/3 internal.print/1 internal.template_string/1
intersection/1 io.jwt.decode/1 io.jwt.decode_verify/2 io.jwt.encode_sign/3 io.jwt.encode_sign_raw/3
io.jwt.verify_eddsa/2 io.jwt.verify_es256/2 io.jwt.verify_es384/2 io.jwt.verify_es512/2
io.jwt.verify_hs256/2 io.jwt.verify_hs384/2 io.jwt.verify_hs512/2 io.jwt.verify_ps256/2
io.jwt.verify_ps384/2 io.jwt.verify_ps512/2 io.jwt.verify_rs256/2 io.jwt.verify_rs384/2
io.jwt.verify_rs512/2 is_array/1 is_boolean/1 is_null/1 is_number/1 is_object/1 is_set/1 is_string/1
json.filter/2 json.is_valid/1 json.marshal/1 json.marshal_with_options/2 json.match_schema/2 json.patch/2
json.remove/2 json.unmarshal/1 json.verify_schema/1 lower/1 lt/2 lte/2 max/1 min/1 minus/2 mul/2 neq/2
net.cidr_contains/2 net.cidr_contains_matches/2 net.cidr_expand/1 net.cidr_intersects/2
net.cidr_is_valid/1 net.cidr_merge/1 net.lookup_ip_addr/1 numbers.range/2 numbers.range_step/3
object.filter/2 object.get/3 object.keys/1 object.remove/2 object.subset/2 object.union/2
object.union_n/1 opa.runtime/0 or/2 plus/2 product/1 providers.aws.sign_req/3 rand.intn/2
regex.find_all_string_submatch_n/3 regex.find_n/3 regex.globs_match/2 regex.is_valid/1 regex.match/2
regex.replace/3 regex.split/2 regex.template_match/4 rego.metadata.chain/0 rego.metadata.rule/0
rego.parse_module/2 rem/2 replace/3 round/1 semver.compare/2 semver.is_valid/1 sort/1 split/2 sprintf/2
startswith/2 strings.any_prefix_match/2 strings.any_suffix_match/2 strings.count/2
strings.render_template/2 strings.replace_n/2 strings.reverse/1 strings.split_n/3 substring/3 sum/1
time.add_date/4 time.clock/1 time.date/1 time.diff/2 time.format/1 time.now_ns/0
time.parse_duration_ns/1 time.parse_ns/2 time.parse_rfc3339_ns/1 time.weekday/1 to_number/1 trace/1
trim/2 trim_left/2 trim_prefix/2 trim_right/2 trim_space/1 trim_suffix/2 type_name/1 union/1
units.parse/1 units.parse_bytes/1 upper/1 uri.is_valid/1 uri.parse/1 urlquery.decode/1
urlquery.decode_object/1 urlquery.encode/1 urlquery.encode_object/1 uuid.parse/1 uuid.rfc4122/1 walk/1
yaml.is_valid/1 yaml.marshal/1 yaml.unmarshal/1`;

export const OPA_BUILTIN_ARITY: ReadonlyMap<string, number> = new Map(
  SPEC.split(/\s+/)
    .filter((s) => s !== '')
    .map((s) => {
      const i = s.lastIndexOf('/');
      return [s.slice(0, i), Number(s.slice(i + 1))] as const;
    }),
);

export const OPA_BUILTIN_NAMES: ReadonlySet<string> = new Set(OPA_BUILTIN_ARITY.keys());
