import type { INodeProperties } from 'n8n-workflow';

import type { ModelEntry } from '../api';
import { listOperation } from './listOf';
import { optionsCollection } from './requestOptions';

/** List Models: one item per entry of GET /models/available (docs/api.md#models). */

export const description: INodeProperties[] = [optionsCollection('listModels')];

export const execute = listOperation<ModelEntry>('models', '/models/available');
