/**
 * providers.aws.sign_req. The first case is AWS's own Signature V4 example
 * (IAM ListUsers, documented signature 5d672d79...); the others are what
 * OPA v1.20.2 returns for the same calls.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { toJS } from '../../../runtime/policy/value-json.js';

function sign(query: string): Record<string, unknown> {
  const rs = compilePolicy({ modules: {} }).query(`x := ${query}`, { strictBuiltinErrors: true });
  return toJS(rs[0]!['x']!) as Record<string, unknown>;
}

function signError(query: string): string {
  try {
    sign(query);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('providers.aws.sign_req', () => {
  it("reproduces AWS's documented Signature V4 example", () => {
    const r = sign(
      'providers.aws.sign_req({"method": "GET", "url": "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08", "headers": {"content-type": "application/x-www-form-urlencoded; charset=utf-8"}}, {"aws_access_key": "AKIDEXAMPLE", "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "aws_service": "iam", "aws_region": "us-east-1"}, 1440938160000000000)',
    );
    expect(r['headers']).toEqual({
      Authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request,SignedHeaders=content-type;host;x-amz-date,Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      host: 'iam.amazonaws.com',
      'x-amz-date': '20150830T123600Z',
    });
  });

  it('signs S3 requests with a session token, unsigned payload, escaped path and ignored headers as OPA does', () => {
    const r = sign(
      'providers.aws.sign_req({"method": "put", "url": "https://b.s3.amazonaws.com/a%20b/c?z=1&a=2", "headers": {"User-Agent": "x", "X-Multi": ["1", "2"]}, "body": {"k": [1, 2]}}, {"aws_access_key": "A", "aws_secret_access_key": "S", "aws_service": "s3", "aws_region": "eu-west-1", "aws_session_token": "T", "disable_payload_signing": true}, 1451311705000000000)',
    );
    expect(r).toEqual({
      body: { k: [1, 2] },
      headers: {
        Authorization:
          'AWS4-HMAC-SHA256 Credential=A/20151228/eu-west-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token;x-multi,Signature=727ffaba13bdec3eb2740377286f93d31baa3529fad87f8f57596d792251fa78',
        'User-Agent': 'x',
        'X-Multi': '',
        host: 'b.s3.amazonaws.com',
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        'x-amz-date': '20151228T140825Z',
        'x-amz-security-token': 'T',
      },
      method: 'put',
      url: 'https://b.s3.amazonaws.com/a%20b/c?z=1&a=2',
    });
  });

  it("rejects bad arguments with OPA's messages", () => {
    const cfg = '{"aws_access_key": "A", "aws_secret_access_key": "S", "aws_service": "s3", "aws_region": "r"}';
    expect(signError(`providers.aws.sign_req({}, ${cfg}, 0)`)).toContain('operand 1 missing required request parameters(s): {"method", "url"}');
    expect(signError('providers.aws.sign_req({"method": "get", "url": "http://x"}, {"aws_service": 1}, 0)')).toContain(
      'operand 2 missing required AWS config parameters(s): {"aws_access_key", "aws_region", "aws_secret_access_key"}',
    );
    expect(signError(`providers.aws.sign_req({"method": "get", "url": "http://x"}, ${cfg}, -1e9)`)).toContain(
      'operand 3 could not convert time_ns value into a unix timestamp',
    );
  });
});
