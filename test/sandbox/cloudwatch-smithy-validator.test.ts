import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AWS_MODELS_DIR,
  decodeAwsQueryRequest,
  decodeAwsQueryResponse,
  loadModel,
  parseXml,
  validateOperationInput,
  validateOperationOutput,
  validateShape,
  type SmithyModel,
} from '../helpers/smithy.js';

const CW = path.join(AWS_MODELS_DIR, 'cloudwatch.json');
const FIS = path.join(AWS_MODELS_DIR, 'fis.json');

/** A tiny model that exercises the trait forms the AWS models here do not use (`smithy.api#enum`, unions, maps). */
const TOY: SmithyModel = {
  smithy: '2.0',
  shapes: {
    'toy#Svc': { type: 'service' },
    'toy#Color': { type: 'string', traits: { 'smithy.api#enum': [{ value: 'red' }, { value: 'blue' }] } },
    'toy#Choice': {
      type: 'union',
      members: { a: { target: 'smithy.api#String' }, b: { target: 'smithy.api#Integer' } },
    },
    'toy#Labels': {
      type: 'map',
      key: { target: 'toy#Key' },
      value: { target: 'smithy.api#String' },
      traits: { 'smithy.api#length': { max: 2 } },
    },
    'toy#Key': { type: 'string', traits: { 'smithy.api#pattern': '^[a-z]+$' } },
    'toy#Thing': {
      type: 'structure',
      members: {
        color: { target: 'toy#Color' },
        choice: { target: 'toy#Choice' },
        labels: { target: 'toy#Labels' },
        small: { target: 'smithy.api#Byte' },
        when: { target: 'smithy.api#Timestamp', traits: { 'smithy.api#timestampFormat': 'http-date' } },
      },
    },
  },
};

describe('Smithy shape validator', () => {
  it('accepts a valid PutMetricData input and reports nothing', () => {
    const errors = validateOperationInput(
      CW,
      'PutMetricData',
      {
        Namespace: 'App',
        MetricData: [
          { MetricName: 'm', Value: 1, Timestamp: 1700000000.5, StorageResolution: 1, Unit: 'Count' },
        ],
      },
      { timestamps: 'epoch-seconds' },
    );
    expect(errors).toEqual([]);
  });

  it('reports missing required members, unknown members, enum, length, range and pattern violations with paths', () => {
    const errors = validateOperationInput(CW, 'PutMetricData', {
      Namespace: ':bad',
      MetricData: [
        { Value: 1, Unit: 'Parsecs', StorageResolution: 0, Dimensions: [{ Name: '', Value: 'x' }], Bogus: 1 },
      ],
    });
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\$\.Namespace: ":bad" does not match the pattern \^\[\^:\]/),
        '$.MetricData[0].Bogus: not a member of MetricDatum',
        '$.MetricData[0].MetricName: required member of MetricDatum is missing',
        expect.stringMatching(/^\$\.MetricData\[0\]\.Unit: "Parsecs" is not one of the StandardUnit values/),
        '$.MetricData[0].StorageResolution: 0 is below the minimum 1',
        '$.MetricData[0].Dimensions[0].Name: string length 0 is below the minimum length 1',
      ]),
    );
    expect(errors).toHaveLength(6);
  });

  it('checks list sizes and nested structures in outputs', () => {
    const tooMany = Array.from({ length: 6 }, (_, i) => `arn:aws:sns:us-east-1:1:t${i}`);
    const errors = validateOperationOutput(CW, 'DescribeAlarms', {
      MetricAlarms: [{ AlarmName: 'a', AlarmActions: tooMany, StateValue: 'PANIC', Period: 1.5 }],
    });
    expect(errors).toEqual([
      '$.MetricAlarms[0].AlarmActions: list size 6 is above the maximum length 5',
      expect.stringMatching(/StateValue: "PANIC" is not one of the StateValue values/),
      '$.MetricAlarms[0].Period: expected an integer (Period), got 1.5',
    ]);
  });

  it('enforces the timestamp wire format it is told to expect', () => {
    const value = { AlarmName: 'a', StateUpdatedTimestamp: '2026-01-01T00:00:00Z' };
    expect(validateShape(CW, 'MetricAlarm', value, { timestamps: 'date-time' })).toEqual([]);
    expect(validateShape(CW, 'MetricAlarm', value, { timestamps: 'epoch-seconds' })).toEqual([
      '$.StateUpdatedTimestamp: expected epoch seconds (a number), got the string "2026-01-01T00:00:00Z"',
    ]);
    expect(validateShape(CW, 'MetricAlarm', { StateUpdatedTimestamp: '2026-01-01 00:00' })).toEqual([
      '$.StateUpdatedTimestamp: "2026-01-01 00:00" is not an RFC 3339 date-time',
    ]);
  });

  it('handles the enum trait, unions, maps with key patterns, integer widths and http-date timestamps', () => {
    const errors = validateShape(TOY, 'toy#Thing', {
      color: 'green',
      choice: { a: 'x', b: 1 },
      labels: { ok: 'v', Bad: 'v', c: 'v' },
      small: 300,
      when: 'Wed, 21 Oct 2015 07:28:00 GMT',
    });
    expect(errors).toEqual([
      '$.color: "green" is not one of the Color values (red, blue)',
      '$.choice: union Choice must have exactly one member set, has 2',
      '$.labels: map size 3 is above the maximum length 2',
      '$.labels{key "Bad"}: "Bad" does not match the pattern ^[a-z]+$ of Key',
      '$.small: 300 does not fit a byte',
    ]);
  });

  it('validates restJson1 bodies without their HTTP-bound members (FIS)', () => {
    const body = { clientToken: 'tok-1', experimentTemplateId: 'EXT123', tags: { team: 'sre' } };
    expect(validateOperationInput(FIS, 'StartExperiment', body, { bodyOnly: true })).toEqual([]);
    expect(validateOperationInput(FIS, 'GetExperiment', {}, { bodyOnly: true })).toEqual([]);
    expect(validateOperationInput(FIS, 'GetExperiment', {})).toEqual([
      '$.id: required member of GetExperimentRequest is missing',
    ]);
    expect(validateOperationInput(FIS, 'StartExperiment', { ...body, clientToken: 'has space' })).toEqual([
      expect.stringMatching(/clientToken: "has space" does not match the pattern/),
    ]);
  });

  it('decodes awsQuery form requests by the model and reports parameters no member accounts for', () => {
    const model = loadModel(CW);
    const params = new URLSearchParams({
      Action: 'PutMetricData',
      Version: '2010-08-01',
      Namespace: 'App',
      'MetricData.member.1.MetricName': 'm',
      'MetricData.member.1.Values.member.1': '1.5',
      'MetricData.member.1.Values.member.2': '2',
      'MetricData.member.1.Dimensions.member.1.Name': 'a',
      'MetricData.member.1.Dimensions.member.1.Value': 'b',
      'MetricData.member.1.Timestamp': '2026-01-01T00:00:00Z',
      'MetricData.member.1.Nonsense': 'x',
    });
    const decoded = decodeAwsQueryRequest(model, 'PutMetricData', params);
    expect(decoded.input).toEqual({
      Namespace: 'App',
      MetricData: [
        {
          MetricName: 'm',
          Values: [1.5, 2],
          Dimensions: [{ Name: 'a', Value: 'b' }],
          Timestamp: '2026-01-01T00:00:00Z',
        },
      ],
    });
    expect(decoded.problems).toEqual([
      "parameter MetricData.member.1.Nonsense is not part of PutMetricData's input",
    ]);
  });

  it('decodes awsQuery XML responses and flags envelope problems and unknown elements', () => {
    const model = loadModel(CW);
    const xml =
      '<DescribeAlarmsResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/"><DescribeAlarmsResult><MetricAlarms>' +
      '<member><AlarmName>a &amp; b</AlarmName><Period>60</Period><Extra>1</Extra></member></MetricAlarms></DescribeAlarmsResult>' +
      '<ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></DescribeAlarmsResponse>';
    const decoded = decodeAwsQueryResponse(model, 'DescribeAlarms', xml);
    expect(decoded.problems).toEqual([]);
    expect(decoded.output).toEqual({ MetricAlarms: [{ AlarmName: 'a & b', Period: 60, '?Extra': '1' }] });
    expect(validateOperationOutput(model, 'DescribeAlarms', decoded.output)).toEqual([
      '$.MetricAlarms[0].?Extra: not a member of MetricAlarm',
    ]);
    expect(decodeAwsQueryResponse(model, 'DescribeAlarms', '<Wrong xmlns="x"/>').problems).toEqual([
      'root element is <Wrong>, expected <DescribeAlarmsResponse>',
      'xmlns is x, expected http://monitoring.amazonaws.com/doc/2010-08-01/',
      'ResponseMetadata.RequestId is missing',
    ]);
    expect(() => parseXml('<a><b></a>')).toThrow(/mismatched close tag/);
  });
});
