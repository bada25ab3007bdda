import { describe, expect, it } from 'vitest';
import { compileJsonQuery } from './json-query.ts';

const doc = {
  version: '1.2.3',
  cluster_name: 'vault-1',
  server: { name: 'srv', version: '9' },
  'm.server': 'matrix.example:443',
  items: [
    { id: 1, slug: 'a', content: { rendered: 'x eeSFL_UploadGo y' } },
    { id: 2, slug: 'b', content: { rendered: 'nothing' } },
  ],
  events: [
    { eventAction: 'registration', eventDate: '2001-01-01' },
    { eventAction: 'expiration', eventDate: '2030-01-01' },
  ],
  adminPrincipals: ['root', 'ops'],
  allowPasswordRecovery: true,
  allowSelfRegistration: true,
  deep: { a: { token: 't1' }, b: [{ token: 't2' }] },
  firmware: 'CHARX V1.6.3 build',
  beans: { one: 1, two: 2 },
};

describe('jq as the corpus writes it', () => {
  it.each([
    ['.version', ['1.2.3']],
    ['."m.server" | select( . != null )', ['matrix.example:443']],
    ['.items[].slug', ['a', 'b']],
    ['.items[0].id', [1]],
    ['.items[-1].slug', ['b']],
    ['.items[] | select(.content.rendered | contains("eeSFL_UploadGo")) | .slug', ['a']],
    ['.events[] | select(.eventAction == "registration").eventDate', ['2001-01-01']],
    ['.version , "Cluster Name: " + .cluster_name', ['1.2.3', 'Cluster Name: vault-1']],
    ['"Version: "+ .version , "Cluster Name: "+ .cluster_name', ['Version: 1.2.3', 'Cluster Name: vault-1']],
    ['"adminUser: " + ( .adminPrincipals[] | tostring )', ['adminUser: root', 'adminUser: ops']],
    ['if .allowPasswordRecovery==true and .allowSelfRegistration==true then true else false end', [true]],
    ['.server | select((.name != null) and (.version != null)) | .name, .version', ['srv', '9']],
    ['.beans | to_entries | .[].key', ['one', 'two']],
    ['.beans | keys', [['one', 'two']]],
    ['[.. | .token? | select(. != null)]', [['t1', 't2']]],
    ['.firmware | capture("V(?<version>\\\\d+(?:\\\\.\\\\d+)*)"; "i") | .version', ['1.6.3']],
    ['.firmware | test("charx"; "i")', [true]],
    ['.adminPrincipals | length', [2]],
    ['.adminPrincipals | join(",")', ['root,ops']],
    ['.missing // "default"', ['default']],
    ['.items | map(.id)', [[1, 2]]],
    ['.version | split(".") | .[0]', ['1']],
    ['.nothing.deeper', [null]],
    ['.version[1:3]', ['.2']],
    ['[..|objects|.token//empty]', [['t1', 't2']]],
    ['.beans | .[] | numbers', [1, 2]],
  ] as [string, unknown[]][])('%s', (query, expected) => {
    expect(compileJsonQuery(query).run(doc)).toEqual(expected);
  });

  it('yields nothing (no exception) when the input has another shape', () => {
    expect(compileJsonQuery('.version[]').run(doc)).toEqual([]);
    expect(compileJsonQuery('.items | keys | .x').run(doc)).toEqual([]);
  });

  it.each(['.a |', 'frobnicate', '.a[', 'split(1;2;3)'])('rejects %s at compile time', (query) => {
    expect(() => compileJsonQuery(query)).toThrow(/unsupported jq expression/);
  });
});
